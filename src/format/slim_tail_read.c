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

/* rows a slot's reader decodes before it fills in every attribute's facts */
#define SLIM_READER_WARM_ROWS	16

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
	uint32		header = slim_varint_get(&p);
	int			stored_natts = Min(first + (int) (header >> 2), tupdesc->natts);

	return slim_read_map(&p, (SlimTailEncoding) (header & 3), first,
						 stored_natts - first, positions);
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
	uint32		header = slim_varint_get(&p);

	return Min(first + (int) (header >> 2), tupdesc->natts);
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
 * A fixed-length value as fetch_att() gives it (by value sign-extended, else
 * its address), without a branch on its length: the 8 bytes that end with
 * the value are read (a tail value has the tuple header before it, so they
 * lie in the tuple) and shifted down.
 */
static inline Datum
slim_fetch_fixed(const char *ptr, const SlimAttInfo *ai)
{
#ifndef WORDS_BIGENDIAN
	int64		word;

	memcpy(&word, ptr + ai->attlen - sizeof(int64), sizeof(int64));
	return ai->attbyval ? (Datum) (word >> ai->shift) : PointerGetDatum(ptr);
#else
	return fetch_att(ptr, ai->attbyval, ai->attlen);
#endif
}

/* attribute a's packed facts, filled in from tupdesc the first time */
static inline SlimAttInfo *
slim_known_att(SlimAttInfo *attinfo, bool *known, TupleDesc tupdesc, int a)
{
	if (unlikely(!known[a]))
	{
		slim_att_info_set(&attinfo[a], TupleDescAttr(tupdesc, a));
		known[a] = true;
	}
	return &attinfo[a];
}

/*
 * Make entries [from, limit) of values/isnull read NULL, as rd tracks them:
 * the entries earlier rows set there are reset, and only the part of the
 * range rd does not know yet is written whole.  Entries below from are
 * this row's (or the prefix's) and stay as they are.
 */
static void
slim_tail_reader_reset(SlimTailReader *rd, int from, int limit,
					   Datum *values, bool *isnull)
{
	int16	   *set = rd->set;
	int			nset = rd->nset;
	int			kept = 0;
	int			k;

	/*
	 * Locals: the stores into isnull may alias anything.  A scan decodes
	 * every row from the same attribute on, so no entry is kept, usually.
	 */
	if (likely(from <= rd->set_min))
	{
		for (k = 0; k < nset; k++)
		{
			int			a = set[k];

			values[a] = (Datum) 0;
			isnull[a] = true;
		}
		rd->set_min = PG_INT32_MAX;
	}
	else
	{
		int			kept_min = PG_INT32_MAX;

		for (k = 0; k < nset; k++)
		{
			int			a = set[k];

			if (a >= from)
			{
				values[a] = (Datum) 0;
				isnull[a] = true;
			}
			else
			{
				set[kept++] = a;
				kept_min = Min(kept_min, a);
			}
		}
		rd->set_min = kept_min;
	}
	rd->nset = kept;

	if (rd->null_lo >= rd->null_hi || from > rd->null_hi ||
		limit < rd->null_lo)
	{
		memset(isnull + from, true, limit - from);
		memset(values + from, 0, (limit - from) * sizeof(Datum));
		rd->null_lo = from;
		rd->null_hi = limit;
		return;
	}
	if (from < rd->null_lo)
	{
		memset(isnull + from, true, rd->null_lo - from);
		memset(values + from, 0, (rd->null_lo - from) * sizeof(Datum));
		rd->null_lo = from;
	}
	if (limit > rd->null_hi)
	{
		memset(isnull + rd->null_hi, true, limit - rd->null_hi);
		memset(values + rd->null_hi, 0,
			   (limit - rd->null_hi) * sizeof(Datum));
		rd->null_hi = limit;
	}
}

/*
 * Deform attributes [from, natts) of a tail row into values/isnull (0-based;
 * from is at least the header's natts K, whose prefix the caller has
 * deformed, and prefix_end is where its data ends), reading only as much of
 * the tail as they need: the map to its end, which is where the values start
 * and where the sizes of the groups of fixed-length values are known, and
 * the values of attributes below natts (a varlena's by walking the varlenas
 * before it).  Returns how many attributes are valid now: natts, or, when
 * tupdesc has fast defaults and natts lies past the tail, the tail's last
 * one (the caller fills in the missing values after it).
 *
 * rd's attinfo has an entry for each attribute of tupdesc; those whose
 * known[] flag is still false are filled in here when first met, so that a
 * slot that reads few rows does not pay for every attribute of a wide
 * table (after SLIM_READER_WARM_ROWS rows, all at once).  rd also says
 * which entries of values/isnull read NULL already (SlimTailReader), and
 * learns which this row sets.  The loops avoid
 * branches on the types of the values, which come in no predictable order,
 * and keep few variables live: they run once for every value of a row.
 */
int
slim_deform_tail_upto(HeapTupleHeader td, TupleDesc tupdesc,
					  SlimTailReader *rd, uint32 prefix_end,
					  int from, int natts, Datum *values, bool *isnull)
{
	int			first = HeapTupleHeaderGetNatts(td);
	const char *tp = (const char *) td + td->t_hoff;
	const char *p = tp + prefix_end;
	uint32		header = slim_varint_get(&p);
	int			stored_natts = Min(first + (int) (header >> 2), tupdesc->natts);
	int			ntail = stored_natts - first;
	bool		has_missing = tupdesc->constr != NULL &&
		tupdesc->constr->missing != NULL;
	int			limit = has_missing ? Min(natts, stored_natts) : natts;
	SlimTailEncoding encoding = (SlimTailEncoding) (header & 3);
	SlimAttInfo *attinfo = rd->attinfo;
	bool	   *known = rd->known;
	/* the values below limit, by kind, and fixed ones' offsets in a group */
	int16		fixed[MaxTupleAttributeNumber];
	uint16		fixed_off[MaxTupleAttributeNumber];
	int16		varlenas[MaxTupleAttributeNumber];
	/* bytes of each group; group 4's sum means nothing */
	uint32		size[SLIM_FIXED_GROUPS + 1] = {0};
	uint32		start[SLIM_FIXED_GROUPS];
	ptrdiff_t	nfixed = 0;
	ptrdiff_t	nvalues = 0;	/* below limit */
	ptrdiff_t	nvarlenas;
	int			i = 0;			/* tail attribute the map is at */
	uint32		bits = 0;		/* BITMAP: bits left of byte i / 8 */
	uint32		off;
	ptrdiff_t	lo;
	ptrdiff_t	k;
	int			g;

	/*
	 * The caller fills in [limit, natts) with the missing values.  C1 keeps
	 * fast defaults out of every tail, so no later range covers them; the
	 * bound (and slim_slot_getsomeattrs() telling rd what a standard row's
	 * deforming and its missing values wrote) keeps rd right without
	 * relying on it.
	 */
	if (limit < natts)
		rd->null_hi = Min(rd->null_hi, Max(from, limit));
	if (limit <= from)
		return Max(from, limit);
	slim_tail_reader_wrote(rd, first);
	slim_tail_reader_reset(rd, from, limit, values, isnull);

	/*
	 * What the walk does with a value of the map, attribute a: below limit,
	 * record it (those below from too: the offsets after them depend on
	 * them) and add it to its group's size; past limit, only the size.
	 */
#define SLIM_RECORD(a, LOOKUP) \
	{ \
		const SlimAttInfo *ai = LOOKUP(a); \
		uint32		o; \
		\
		g = ai->group; \
		o = TYPEALIGN(ai->alignmask + 1, size[g]); \
		size[g] = o + ai->attlen; \
		fixed[nfixed] = (a); \
		fixed_off[nfixed] = o; \
		varlenas[nvalues - nfixed] = (a); \
		nfixed += ai->isfixed; \
		nvalues++; \
	}
#define SLIM_SIZE(a, LOOKUP) \
	{ \
		const SlimAttInfo *ai = LOOKUP(a); \
		\
		g = ai->group; \
		size[g] = TYPEALIGN(ai->alignmask + 1, size[g]) + ai->attlen; \
	}

	/*
	 * GAPS and BITMAP: the next value of the map, as the number of its
	 * attribute into a (they come in ascending order), or break when the
	 * map is done.
	 */
#define SLIM_NEXT_GAPS(a) \
	if (i >= ntail || (i += slim_varint_get(&p)) >= ntail) \
		break; \
	(a) = first + i++;
#define SLIM_NEXT_BITMAP(a) \
	while (bits == 0 && i < ntail) \
	{ \
		bits = (uint8) p[i / 8]; \
		i += 8; \
	} \
	if (bits == 0) \
		break; \
	(a) = first + i - 8 + pg_rightmost_one_pos32(bits); \
	bits &= bits - 1; \
	if ((a) >= stored_natts) \
		break;
#define SLIM_WALK(NEXT, LOOKUP) \
	for (;;) \
	{ \
		int			a; \
		\
		NEXT(a); \
		if (a >= limit) \
		{ \
			SLIM_SIZE(a, LOOKUP); \
			break; \
		} \
		SLIM_RECORD(a, LOOKUP); \
	} \
	for (;;) \
	{ \
		int			a; \
		\
		NEXT(a); \
		SLIM_SIZE(a, LOOKUP); \
	}

	/*
	 * RUNS: a run of values is a range of attributes, split at limit, so
	 * its loops test no bound but their own.
	 */
#define SLIM_WALK_RUNS(LOOKUP) \
	while (i < ntail) \
	{ \
		int			a; \
		int			run_end; \
		int			record_end; \
		\
		i += slim_varint_get(&p); \
		a = first + Min(i, ntail); \
		i += slim_varint_get(&p); \
		i = Min(i, ntail); \
		run_end = first + i; \
		record_end = Min(run_end, limit); \
		for (; a < record_end; a++) \
			SLIM_RECORD(a, LOOKUP); \
		for (; a < run_end; a++) \
			SLIM_SIZE(a, LOOKUP); \
	}

#define SLIM_LOOKUP_CHECKED(a)	slim_known_att(attinfo, known, tupdesc, (a))
#define SLIM_LOOKUP_KNOWN(a)	(&attinfo[(a)])
	/*
	 * A slot that has read a few rows (a scan, not a lookup) fills in every
	 * attribute's facts once, so the walk no longer tests known[].
	 */
	if (unlikely(!rd->known_all) && ++rd->rows >= SLIM_READER_WARM_ROWS)
	{
		for (k = 0; k < tupdesc->natts; k++)
			(void) slim_known_att(attinfo, known, tupdesc, k);
		rd->known_all = true;
	}
#define SLIM_WALK_MAP(LOOKUP) \
	switch (encoding) \
	{ \
		case SLIM_TAIL_RUNS: \
			SLIM_WALK_RUNS(LOOKUP); \
			break; \
		case SLIM_TAIL_GAPS: \
			SLIM_WALK(SLIM_NEXT_GAPS, LOOKUP); \
			break; \
		case SLIM_TAIL_BITMAP: \
			SLIM_WALK(SLIM_NEXT_BITMAP, LOOKUP); \
			break; \
	}
	if (rd->known_all)
	{
		SLIM_WALK_MAP(SLIM_LOOKUP_KNOWN);
	}
	else
	{
		SLIM_WALK_MAP(SLIM_LOOKUP_CHECKED);
	}
#undef SLIM_WALK_MAP
#undef SLIM_LOOKUP_CHECKED
#undef SLIM_LOOKUP_KNOWN
#undef SLIM_WALK_RUNS
#undef SLIM_WALK
#undef SLIM_NEXT_GAPS
#undef SLIM_NEXT_BITMAP
#undef SLIM_SIZE
#undef SLIM_RECORD
	nvarlenas = nvalues - nfixed;

	/* past the map: each group of fixed-length values, then the varlenas */
	off = (encoding == SLIM_TAIL_BITMAP ? p + (ntail + 7) / 8 : p) - tp;
	for (g = 0; g < SLIM_FIXED_GROUPS; g++)
	{
		if (size[g] > 0)
			off = TYPEALIGN(slim_group_align[g], off);
		start[g] = off;
		off += size[g];
	}

	/*
	 * The values from "from" to limit.  Those below from are this row's
	 * already and stay untouched: callers may have changed them in place
	 * (nodeAgg.c's grouping sets NULL some out), as below tts_nvalid
	 * they may.  Both arrays are in attribute order, so the split is an
	 * index, not a test a value; the varlenas below from are still walked,
	 * for the offsets after them.  The entries written are the row's new
	 * ones in rd->set.
	 */
	for (lo = 0; lo < nfixed && fixed[lo] < from; lo++)
		;
	for (k = lo; k < nfixed; k++)
	{
		int			a = fixed[k];
		const SlimAttInfo *ai = &attinfo[a];

		values[a] = slim_fetch_fixed(tp + start[ai->group] + fixed_off[k], ai);
		isnull[a] = false;
	}
	memcpy(rd->set + rd->nset, fixed + lo, (nfixed - lo) * sizeof(int16));
	rd->nset += nfixed - lo;

	for (lo = 0; lo < nvarlenas && varlenas[lo] < from; lo++)
	{
		const SlimAttInfo *ai = &attinfo[varlenas[lo]];

		off = slim_tail_value_start(ai, tp, off);
		off = att_addlength_pointer(off, ai->attlen, tp + off);
	}
	for (k = lo; k < nvarlenas; k++)
	{
		int			a = varlenas[k];
		const SlimAttInfo *ai = &attinfo[a];

		off = slim_tail_value_start(ai, tp, off);
		values[a] = PointerGetDatum(tp + off);
		isnull[a] = false;
		off = att_addlength_pointer(off, ai->attlen, tp + off);
	}
	memcpy(rd->set + rd->nset, varlenas + lo,
		   (nvarlenas - lo) * sizeof(int16));
	rd->nset += nvarlenas - lo;
	/* every entry this call set lies at or past from */
	rd->set_min = Min(rd->set_min, from);
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
