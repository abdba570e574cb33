/*-------------------------------------------------------------------------
 *
 * slim_tail_read.c
 *	  Decoding rows with a compressed tail into values and NULL flags.
 *
 * The trusting reader, for rows this build formed (slim_tail.c): the
 * verify functions check a row with slim_tail_check.c before any of this
 * reads it.  docs/format.md gives the layout.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/format/slim_tail_read.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "port/pg_bitutils.h"

#include "slim_tail.h"

/* the alignment of each fixed-length group of tail values */
static const uint8 slim_group_align[SLIM_FIXED_GROUPS] = {
	ALIGNOF_DOUBLE, ALIGNOF_INT, ALIGNOF_SHORT, 1
};

/*
 * Where the data of a row's prefix ends, relative to t_hoff: the walk heap's
 * deforming does over the header's natts attributes.
 */
uint32
slim_prefix_end(HeapTupleHeader td, TupleDesc tupdesc)
{
	int			natts = HeapTupleHeaderGetNatts(td);
	bool		hasnulls = (td->t_infomask & HEAP_HASNULL) != 0;
	char	   *tp = (char *) td + td->t_hoff;
	uint32		off = 0;
	int			i;

	for (i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (hasnulls && att_isnull(i, td->t_bits))
			continue;
		off = slim_align_stored(att, tp, off);
		off = att_addlength_pointer(off, att->attlen, tp + off);
	}
	return off;
}

/*
 * The attribute numbers (0-based) of the values of a tail whose map starts
 * at *pp, into positions; *pp is left past the map.  Returns how many.
 */
static int
slim_read_map(const char **pp, SlimTailEncoding encoding, int first,
			  int ntail, int16 *positions)
{
	const char *p = *pp;
	int			n = 0;
	int			i = 0;

	switch (encoding)
	{
		case SLIM_TAIL_RUNS:
			while (i < ntail)
			{
				int			vals;

				i += slim_varint_get(&p);
				vals = slim_varint_get(&p);
				while (vals-- > 0 && i < ntail)
					positions[n++] = first + i++;
			}
			break;
		case SLIM_TAIL_GAPS:
			while (i < ntail)
			{
				i += slim_varint_get(&p);
				positions[n++] = first + i++;
			}
			break;
		case SLIM_TAIL_BITMAP:
			for (i = 0; i < (ntail + 7) / 8; i++)
			{
				uint32		bits = (uint8) p[i];

				while (bits != 0)
				{
					positions[n++] = first + i * 8 + pg_rightmost_one_pos32(bits);
					bits &= bits - 1;
				}
			}
			p += (ntail + 7) / 8;
			break;
	}
	*pp = p;
	return n;
}

/*
 * Deform the tail of a row this build formed into values/isnull: the
 * attributes from the header's natts (K) up to the last one the tail holds,
 * whose number is returned; the caller fills in the missing values of the
 * attributes after it.  prefix_end is slim_prefix_end()'s answer.  NULL
 * runs cost one memset, not a test each.
 */
int
slim_deform_tail(HeapTupleHeader td, TupleDesc tupdesc, uint32 prefix_end,
				 Datum *values, bool *isnull)
{
	int			first = HeapTupleHeaderGetNatts(td);
	char	   *tp = (char *) td + td->t_hoff;
	const char *p = tp + prefix_end;
	uint32		header = slim_varint_get(&p);
	int			stored_natts = Min(first + (int) (header >> 2), tupdesc->natts);
	int			ntail = stored_natts - first;	/* bounds every array below */
	int16		positions[MaxTupleAttributeNumber];
	int16		ordered[MaxTupleAttributeNumber];
	int			n;
	uint32		off;
	int			k;

	memset(isnull + first, true, stored_natts - first);
	memset(values + first, 0, (stored_natts - first) * sizeof(Datum));
	n = slim_read_map(&p, (SlimTailEncoding) (header & 3), first, ntail,
					  positions);
	slim_order_values(tupdesc, positions, n, ordered);
	off = p - tp;

	for (k = 0; k < n; k++)
	{
		int			attnum = ordered[k];
		Form_pg_attribute att = TupleDescAttr(tupdesc, attnum);

		off = slim_align_stored(att, tp, off);
		values[attnum] = fetchatt(att, tp + off);
		isnull[attnum] = false;
		off = att_addlength_pointer(off, att->attlen, tp + off);
	}
	return stored_natts;
}

/*
 * Deform attributes [from, natts) of a tail row into values/isnull (0-based;
 * from is at least the header's natts K, whose prefix the caller has
 * deformed, and prefix_end is where its data ends), reading only as much of
 * the tail as they need: when they are all NULL the map is read only up to
 * natts; otherwise to its end, which is where the values start and where the
 * sizes of the fixed-length groups before a wanted value's group are known,
 * and only the values of attributes below natts are fetched (a varlena's by
 * walking the varlenas before it).  Returns how many attributes are valid
 * now: natts, or the tail's last one when natts lies past it (the caller
 * fills in the missing values after it).  attinfo is slim_att_info() of the
 * row's descriptor, which has natts_desc attributes.
 */
int
slim_deform_tail_upto(HeapTupleHeader td, const SlimAttInfo *attinfo,
					  int natts_desc, uint32 prefix_end, int from, int natts,
					  Datum *values, bool *isnull)
{
	int			first = HeapTupleHeaderGetNatts(td);
	const char *tp = (const char *) td + td->t_hoff;
	const char *p = tp + prefix_end;
	uint32		header = slim_varint_get(&p);
	int			stored_natts = Min(first + (int) (header >> 2), natts_desc);
	int			ntail = stored_natts - first;
	int			limit = Min(natts, stored_natts);
	int16		want[MaxTupleAttributeNumber];	/* values below limit */
	uint32		want_off[MaxTupleAttributeNumber];	/* offset in group */
	uint32		size[SLIM_FIXED_GROUPS] = {0};	/* bytes of each group */
	uint32		start[SLIM_FIXED_GROUPS];
	int			nwant = 0;
	int			nfill = 0;		/* of those, from on */
	uint32		off;
	int			g;
	int			k;

	if (limit <= from)
		return Max(from, limit);

	/*
	 * One value of the map, of attribute a (they come in attribute order).
	 * Once past limit with nothing to fill, the rest of the map does not
	 * matter.  A fixed-length value adds to its group's size.
	 */
#define SLIM_VISIT(a) \
	do { \
		const SlimAttInfo *ai_ = &attinfo[(a)]; \
		uint32		o_ = 0; \
		if ((a) >= limit && nfill == 0) \
			goto all_null; \
		if (ai_->group < SLIM_FIXED_GROUPS) \
		{ \
			o_ = TYPEALIGN(ai_->alignmask + 1, size[ai_->group]); \
			size[ai_->group] = o_ + ai_->attlen; \
		} \
		if ((a) < limit) \
		{ \
			want[nwant] = (a); \
			want_off[nwant++] = o_; \
			nfill += ((a) >= from); \
		} \
	} while (0)

	switch ((SlimTailEncoding) (header & 3))
	{
		case SLIM_TAIL_RUNS:
			{
				int			i = 0;

				while (i < ntail)
				{
					int			vals;

					i += slim_varint_get(&p);
					vals = slim_varint_get(&p);
					for (; vals > 0 && i < ntail; vals--, i++)
						SLIM_VISIT(first + i);
				}
				break;
			}
		case SLIM_TAIL_GAPS:
			{
				int			i = 0;

				while (i < ntail)
				{
					i += slim_varint_get(&p);
					if (i >= ntail)
						break;
					SLIM_VISIT(first + i);
					i++;
				}
				break;
			}
		case SLIM_TAIL_BITMAP:
			{
				int			nbytes = (ntail + 7) / 8;
				int			i;

				for (i = 0; i < nbytes; i++)
				{
					uint32		bits = (uint8) p[i];

					while (bits != 0)
					{
						int			a = first + i * 8 + pg_rightmost_one_pos32(bits);

						if (a >= stored_natts)
							break;
						SLIM_VISIT(a);
						bits &= bits - 1;
					}
				}
				p += nbytes;
				break;
			}
	}
#undef SLIM_VISIT

	/* past the map: each group of fixed-length values, then the varlenas */
	off = p - tp;
	for (g = 0; g < SLIM_FIXED_GROUPS; g++)
	{
		if (size[g] > 0)
			off = TYPEALIGN(slim_group_align[g], off);
		start[g] = off;
		off += size[g];
	}

	memset(isnull + from, true, limit - from);
	memset(values + from, 0, (limit - from) * sizeof(Datum));
	for (k = 0; k < nwant; k++)
	{
		int			a = want[k];
		const SlimAttInfo *ai = &attinfo[a];

		if (ai->group < SLIM_FIXED_GROUPS)
		{
			if (a >= from)
			{
				values[a] = fetch_att(tp + start[ai->group] + want_off[k],
									  ai->attbyval, ai->attlen);
				isnull[a] = false;
			}
			continue;
		}
		/* varlenas (and cstrings) follow each other in attribute order */
		if (ai->attlen == -1)
			off = att_align_pointer(off, ai->attalign, -1, tp + off);
		else
			off = att_align_nominal(off, ai->attalign);
		if (a >= from)
		{
			values[a] = PointerGetDatum(tp + off);
			isnull[a] = false;
		}
		off = att_addlength_pointer(off, ai->attlen, tp + off);
	}
	return limit;

all_null:
	memset(isnull + from, true, limit - from);
	memset(values + from, 0, (limit - from) * sizeof(Datum));
	return limit;
}

/*
 * heap_deform_tuple() for any slimheap row: a tail row's prefix is heap's
 * (and the attributes past it read as missing), then the tail is decoded.
 */
void
slim_deform_tuple(HeapTuple tuple, TupleDesc tupdesc, Datum *values,
				  bool *isnull)
{
	HeapTupleHeader td = tuple->t_data;

	heap_deform_tuple(tuple, tupdesc, values, isnull);
	if (SlimHeaderHasTail(td))
		(void) slim_deform_tail(td, tupdesc, slim_prefix_end(td, tupdesc),
								values, isnull);
}

const char *
slim_tail_encoding_name(SlimTailEncoding encoding)
{
	switch (encoding)
	{
		case SLIM_TAIL_RUNS:
			return "runs";
		case SLIM_TAIL_GAPS:
			return "gaps";
		case SLIM_TAIL_BITMAP:
			return "bitmap";
	}
	return "unknown";
}
