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
#include "access/sysattr.h"
#include "access/tupdesc_details.h"
#include "access/tupmacs.h"
#include "port/pg_bitutils.h"

#include "slim_layout.h"
#include "slim_tail.h"

/* the alignment of each fixed-length group of tail values */
const uint8 slim_group_align[SLIM_FIXED_GROUPS] = {
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
 * None is past ntail, even in a row formed for a longer layout than the
 * descriptor's (the dead rows of an aborted ADD COLUMN: callers that may
 * meet one cap ntail at the descriptor and read no value of it).
 */
int
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
				if (i >= ntail)
					break;		/* a row of a longer layout (see above) */
				positions[n++] = first + i++;
			}
			break;
		case SLIM_TAIL_BITMAP:
			for (i = 0; i < (ntail + 7) / 8; i++)
			{
				uint32		bits = (uint8) p[i];

				if (i == ntail / 8)
					bits &= (1U << (ntail % 8)) - 1;

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
 * The attribute numbers (0-based) of the values the tail of td holds, into
 * positions (room for MaxTupleAttributeNumber); returns how many.  Reads
 * the prefix's layout and the tail's map, no value.
 */
int
slim_tail_positions(HeapTupleHeader td, TupleDesc tupdesc, int16 *positions)
{
	int			first = HeapTupleHeaderGetNatts(td);
	const char *p = (char *) td + td->t_hoff + slim_prefix_end(td, tupdesc);
	int			ntail;
	int			map_ntail;
	SlimTailEncoding encoding = slim_tail_header_get(&p, &ntail, &map_ntail);

	return slim_read_map(&p, encoding, first,
						 Min(map_ntail, tupdesc->natts - first), positions);
}

/*
 * How many attributes a tail row stores, its prefix's and its tail's: those
 * past it read as missing.  Reads the prefix's layout, not the map.
 */
int
slim_tail_natts(HeapTupleHeader td, TupleDesc tupdesc)
{
	int			first = HeapTupleHeaderGetNatts(td);
	const char *p = (char *) td + td->t_hoff + slim_prefix_end(td, tupdesc);
	int			ntail;
	int			map_ntail;

	(void) slim_tail_header_get(&p, &ntail, &map_ntail);
	return Min(first + ntail, tupdesc->natts);
}

/*
 * How many stored NULLs end the tail of tail row td (Z, 0 for a tail that
 * ends with a value); *stored_natts is set as slim_tail_natts() answers.
 */
int
slim_tail_trailing_nulls(HeapTupleHeader td, TupleDesc tupdesc,
						 int *stored_natts)
{
	int			first = HeapTupleHeaderGetNatts(td);
	const char *p = (char *) td + td->t_hoff + slim_prefix_end(td, tupdesc);
	int			ntail;
	int			map_ntail;

	(void) slim_tail_header_get(&p, &ntail, &map_ntail);
	*stored_natts = Min(first + ntail, tupdesc->natts);
	return ntail - map_ntail;
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
	int			ntail;
	int			map_ntail;
	SlimTailEncoding encoding = slim_tail_header_get(&p, &ntail, &map_ntail);
	int			stored_natts = Min(first + ntail, tupdesc->natts);
	int16		positions[MaxTupleAttributeNumber];
	int16		ordered[MaxTupleAttributeNumber];
	int			n;
	uint32		off;
	int			k;

	/* the stored NULLs that end a tail are in this range too */
	memset(isnull + first, true, stored_natts - first);
	memset(values + first, 0, (stored_natts - first) * sizeof(Datum));
	/* the map's count bounds every array below */
	n = slim_read_map(&p, encoding, first,
					  Min(map_ntail, stored_natts - first), positions);
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
 * heap_deform_tuple() for any slimheap row: a tail row's prefix is heap's
 * (and the attributes past it read as missing), then the tail is decoded.
 * Returns the number of attributes the row stores (T; the header's natts
 * for a row without a tail).
 */
int
slim_deform_tuple(HeapTuple tuple, TupleDesc tupdesc, Datum *values,
				  bool *isnull)
{
	HeapTupleHeader td = tuple->t_data;

	heap_deform_tuple(tuple, tupdesc, values, isnull);
	if (!SlimHeaderHasTail(td))
		return HeapTupleHeaderGetNatts(td);
	return slim_deform_tail(td, tupdesc, slim_prefix_end(td, tupdesc),
							values, isnull);
}

/*
 * Whether heap's reading of row td (its prefix, the rest NULL or missing)
 * differs from the row in an attribute of attrs (as pull_varattnos offsets
 * them): a value stored in its tail, or a NULL stored in its tail of a
 * column with a fast default, which heap reads as that default
 * (docs/fast-defaults.md, "the one rule").  A whole-row reference reads
 * every attribute.  Reads the tail's map, no value.
 */
bool
slim_tail_hides(HeapTupleHeader td, TupleDesc tupdesc, const Bitmapset *attrs,
				bool whole_row)
{
	int16		positions[MaxTupleAttributeNumber];
	int			first;
	int			stored_natts;
	int			n;
	int			i;

	if (!SlimHeaderHasTail(td))
		return false;
	if (whole_row)
		return true;
	first = HeapTupleHeaderGetNatts(td);
	stored_natts = slim_tail_natts(td, tupdesc);
	if (slim_missing_floor_upto(tupdesc, stored_natts) > first)
	{
		i = -1;
		while ((i = bms_next_member(attrs, i)) >= 0)
		{
			int			a = i + FirstLowInvalidHeapAttributeNumber - 1;

			if (a >= first && a < stored_natts &&
				tupdesc->constr->missing[a].am_present)
				return true;
		}
	}
	n = slim_tail_positions(td, tupdesc, positions);
	for (i = 0; i < n; i++)
	{
		if (bms_is_member(positions[i] + 1 - FirstLowInvalidHeapAttributeNumber,
						  attrs))
			return true;
	}
	return false;
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
