/*-------------------------------------------------------------------------
 *
 * slim_tail_decode.c
 *	  A slot's decoder of tail rows: attributes [from, natts) of a row past
 *	  its prefix into the slot's arrays, only as much of the tail as they
 *	  need (the prefix: slim_tail_prefix.c).
 *
 * The trusting reader, for rows this build formed (slim_tail.c), as
 * slim_tail_read.c.  docs/format.md gives the layout and the reader's
 * bookkeeping (SlimTailReader); docs/bench.md what each part costs.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/format/slim_tail_decode.c
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

/* the value groups of a tail: the fixed-length ones, then the varlenas */
#define SLIM_GROUPS				(SLIM_FIXED_GROUPS + 1)
#define SLIM_VARLENA_GROUP		SLIM_FIXED_GROUPS

/*
 * A group's attribute numbers, in attribute order, and room for the mark
 * that ends them: no attribute number reaches it, so the loops that stop at
 * "from" or "limit" test nothing else.
 */
#define SLIM_BUCKET_ROOM		(MaxTupleAttributeNumber + 1)
#define SLIM_BUCKET_END			PG_INT16_MAX

/*
 * Every attribute's facts at once, and what each fixed-length group's
 * attributes have in common: one length and one way of passing (then a
 * group's values lie a fixed stride apart), or group_len -1; and the one
 * alignment of the varlenas, when every variable-length attribute is a
 * varlena (varlena_align, else 0).
 */
static void
slim_tail_reader_know_all(SlimTailReader *rd, TupleDesc tupdesc)
{
	int			varlena_align = 0;
	int			g;
	int			a;

	for (g = 0; g < SLIM_FIXED_GROUPS; g++)
		rd->group_len[g] = 0;
	for (a = 0; a < tupdesc->natts; a++)
	{
		const SlimAttInfo *ai = slim_known_att(rd->attinfo, rd->known,
											   tupdesc, a);

		g = ai->group;
		if (!ai->isfixed)
		{
			if (ai->attlen != -1)
				varlena_align = -1;
			else if (varlena_align == 0)
				varlena_align = ai->alignmask + 1;
			else if (varlena_align != ai->alignmask + 1)
				varlena_align = -1;
			continue;
		}
		if (rd->group_len[g] < 0)
			continue;
		if (rd->group_len[g] == 0)
		{
			rd->group_len[g] = ai->attlen;
			rd->group_byval[g] = ai->attbyval;
		}
		else if (rd->group_len[g] != ai->attlen ||
				 rd->group_byval[g] != ai->attbyval)
			rd->group_len[g] = -1;
	}
	rd->varlena_align = Max(varlena_align, 0);
	rd->known_all = true;
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
		/* two entries a turn: the loop's own test is a third of its cost */
		for (k = 0; k + 1 < nset; k += 2)
		{
			int			a = set[k];
			int			b = set[k + 1];

			values[a] = (Datum) 0;
			isnull[a] = true;
			values[b] = (Datum) 0;
			isnull[b] = true;
		}
		if (k < nset)
		{
			values[set[k]] = (Datum) 0;
			isnull[set[k]] = true;
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
 * A GAPS map, each value's attribute number into the bucket of its group,
 * for a row whose tail ends within the descriptor (stop: first + ntail).
 * Its map then adds up to ntail exactly, its last value at stop - 1 (the
 * formers write it so, slim_check_tail() refuses any other), so no gap
 * needs a bound.  The attribute number is the loop's index, kept
 * pointer-wide, and a one-byte gap is read here: a value costs its byte,
 * one load of its group and the bucket's store, with no extension of an
 * int between them.
 */
static pg_attribute_always_inline void
slim_tail_bucket_gaps(const char **pp, intptr_t a, intptr_t stop,
					  const SlimAttInfo *attinfo, int16 **end)
{
	const uint8 *p = (const uint8 *) *pp;

	while (a < stop)
	{
		intptr_t	gap = *p;

		if (likely(gap < 0x80))
			p++;
		else
		{
			const char *q = (const char *) p;

			gap = slim_varint_get(&q);
			p = (const uint8 *) q;
		}
		a += gap;
		*end[attinfo[a].group]++ = (int16) a;
		a++;
	}
	*pp = (const char *) p;
}

/*
 * The same for a RUNS map: a run of NULLs, then one of values, until the
 * last run of values ends at stop exactly.
 */
static pg_attribute_always_inline void
slim_tail_bucket_runs(const char **pp, intptr_t a, intptr_t stop,
					  const SlimAttInfo *attinfo, int16 **end)
{
	const char *p = *pp;

	while (a < stop)
	{
		intptr_t	run_end;

		a += slim_varint_get(&p);
		run_end = a + slim_varint_get(&p);
		for (; a < run_end; a++)
			*end[attinfo[a].group]++ = (int16) a;
	}
	*pp = p;
}

/*
 * The walk of a tail's map: each value's attribute number into the bucket
 * of its group (end[g] is where the next one goes), in attribute order.
 * *pp is at the map and left past it.  checked: attinfo may not know an
 * attribute yet, and the map may go on past ntail (a row formed for more
 * attributes than tupdesc has: the dead rows of an aborted ADD COLUMN).
 */
static pg_attribute_always_inline void
slim_tail_bucket_map(const char **pp, SlimTailEncoding encoding, int first,
					 int ntail, SlimAttInfo *attinfo, bool *known,
					 TupleDesc tupdesc, bool checked, int16 **end)
{
	const char *p = *pp;
	int			i = 0;

#define SLIM_BUCKET(a) \
	do { \
		const SlimAttInfo *ai = checked ? \
			slim_known_att(attinfo, known, tupdesc, (a)) : \
			&attinfo[(a)]; \
		\
		*end[ai->group]++ = (a); \
	} while (0)

	switch (encoding)
	{
		case SLIM_TAIL_RUNS:
			if (!checked)
			{
				slim_tail_bucket_runs(&p, first, first + ntail, attinfo, end);
				break;
			}
			while (i < ntail)
			{
				int			a;
				int			run_end;

				i += slim_varint_get(&p);
				a = first + Min(i, ntail);
				i += slim_varint_get(&p);
				i = Min(i, ntail);
				for (run_end = first + i; a < run_end; a++)
					SLIM_BUCKET(a);
			}
			break;
		case SLIM_TAIL_GAPS:
			if (!checked)
			{
				slim_tail_bucket_gaps(&p, first, first + ntail, attinfo, end);
				break;
			}
			while (i < ntail)
			{
				i += slim_varint_get(&p);
				if (i >= ntail)
					break;		/* a row of a longer layout */
				SLIM_BUCKET(first + i);
				i++;
			}
			break;
		case SLIM_TAIL_BITMAP:
			for (i = 0; i < ntail; i += 8)
			{
				uint32		bits = (uint8) p[i / 8];

				if (ntail - i < 8)
					bits &= (1U << (ntail - i)) - 1;
				while (bits != 0)
				{
					SLIM_BUCKET(first + i + pg_rightmost_one_pos32(bits));
					bits &= bits - 1;
				}
			}
			p += (ntail + 7) / 8;
			break;
	}
#undef SLIM_BUCKET
	*pp = p;
}

/*
 * The values of a group a stride apart, attribute numbers bp[] (the first
 * of them at ptr) up to limit, into values/isnull as heap's fetch_att()
 * gives them, each attribute into sp[]; returns where sp ends.  byval and
 * len are constants where this is inlined.
 */
static pg_attribute_always_inline int16 *
slim_stride_values(const int16 *bp, int limit, const char *ptr,
				   uint32 stride, bool byval, int16 len,
				   Datum *values, bool *isnull, int16 *sp)
{
	int			a;

	while ((a = *bp++) < limit)
	{
		values[a] = fetch_att(ptr, byval, len);
		isnull[a] = false;
		*sp++ = a;
		ptr += stride;
	}
	return sp;
}

/*
 * Group g of fixed-length values, starting at tp + off (aligned), whose
 * attribute numbers are b[] (ending with SLIM_BUCKET_END): the values of
 * [from, limit) into values/isnull, each attribute set into set[*nset].
 * Returns where the group ends.  When every attribute of the group has the
 * same length and way of passing (len > 0), the values lie a stride apart
 * and those outside the range cost nothing.
 */
static pg_attribute_always_inline uint32
slim_tail_fixed_group(const int16 *b, int count, int16 len, bool byval,
					  uint32 align, const SlimAttInfo *attinfo,
					  const char *tp, uint32 off,
					  int from, int limit, Datum *values, bool *isnull,
					  int16 *set, int *nset)
{
	int16	   *sp = set + *nset;
	int			k = 0;
	int			a;

	if (len > 0)
	{
		uint32		stride = TYPEALIGN(align, len);
		const int16 *bp = b;
		const char *ptr;

		while (*bp < from)
			bp++;
		ptr = tp + off + (bp - b) * stride;
		/*
		 * A loop for each length of a value passed by value and one for the
		 * values passed by reference: each fetch is then one load of its
		 * length, with no test of the length or the way of passing.  A type
		 * passed by value is 1, 2, 4 or 8 bytes long (TypeCreate()).
		 */
		if (!byval)
			sp = slim_stride_values(bp, limit, ptr, stride, false, len,
									values, isnull, sp);
		else if (len == 8)
			sp = slim_stride_values(bp, limit, ptr, stride, true, 8,
									values, isnull, sp);
		else if (len == 4)
			sp = slim_stride_values(bp, limit, ptr, stride, true, 4,
									values, isnull, sp);
		else if (len == 2)
			sp = slim_stride_values(bp, limit, ptr, stride, true, 2,
									values, isnull, sp);
		else
		{
			Assert(len == 1);
			sp = slim_stride_values(bp, limit, ptr, stride, true, 1,
									values, isnull, sp);
		}
		*nset = sp - set;
		return off + (count - 1) * stride + len;
	}

	for (; (a = b[k]) < from; k++)
		off = TYPEALIGN(attinfo[a].alignmask + 1, off) + attinfo[a].attlen;
	for (; (a = b[k]) < limit; k++)
	{
		const SlimAttInfo *ai = &attinfo[a];

		off = TYPEALIGN(ai->alignmask + 1, off);
		values[a] = slim_fetch_fixed(tp + off, ai->attlen, ai->attbyval,
									 ai->shift);
		isnull[a] = false;
		*sp++ = a;
		off += ai->attlen;
	}
	for (; k < count; k++)
	{
		a = b[k];
		off = TYPEALIGN(attinfo[a].alignmask + 1, off) + attinfo[a].attlen;
	}
	*nset = sp - set;
	return off;
}

/*
 * The varlena at *vp or, when *vp is padding (a zero byte), at the next
 * multiple of align from tp, as att_align_pointer() tells; *vp is left at
 * it.  Returns its length (VARSIZE_ANY(): never an external one in a
 * tail).
 */
static pg_attribute_always_inline uint32
slim_varlena_at(const char *tp, const char **vp, uint32 align)
{
	const char *v = *vp;

	if (unlikely(!VARATT_NOT_PAD_BYTE(v)))
	{
		v = tp + TYPEALIGN(align, v - tp);
		*vp = v;
	}
	return VARATT_IS_1B(v) ? VARSIZE_1B(v) : VARSIZE_4B(v);
}

/*
 * The varlenas, last in a tail, from tp + off: those below limit into
 * values/isnull (those below from are walked for the offsets after them).
 * align > 0: every variable-length attribute is a varlena (attlen -1) of
 * that alignment, so attinfo is not read.
 */
static pg_attribute_always_inline void
slim_tail_varlena_group(const int16 *b, const SlimAttInfo *attinfo,
						uint32 align, const char *tp, uint32 off, int from,
						int limit, Datum *values, bool *isnull, int16 *set,
						int *nset)
{
	int16	   *sp = set + *nset;
	int			a;

	if (align > 0)
	{
		/* a cursor, not an offset: one addition a value fewer */
		const char *vp = tp + off;

		while ((a = *b) < from)
		{
			uint32		len = slim_varlena_at(tp, &vp, align);

			vp += len;
			b++;
		}
		while ((a = *b++) < limit)
		{
			uint32		len = slim_varlena_at(tp, &vp, align);

			values[a] = PointerGetDatum(vp);
			isnull[a] = false;
			*sp++ = a;
			vp += len;
		}
		*nset = sp - set;
		return;
	}
	for (; (a = *b) < from; b++)
	{
		off = slim_tail_value_start(&attinfo[a], tp, off);
		off = att_addlength_pointer(off, attinfo[a].attlen, tp + off);
	}
	for (; (a = *b) < limit; b++)
	{
		off = slim_tail_value_start(&attinfo[a], tp, off);
		values[a] = PointerGetDatum(tp + off);
		isnull[a] = false;
		*sp++ = a;
		off = att_addlength_pointer(off, attinfo[a].attlen, tp + off);
	}
	*nset = sp - set;
}

/*
 * Deform attributes [from, natts) of a tail row into values/isnull (0-based;
 * from is at least the header's natts K, whose prefix the caller has
 * deformed, and prefix_end is where its data ends).  Returns how many
 * attributes are valid now: natts, or, when tupdesc has fast defaults and
 * natts lies past the tail, the tail's last one (the caller fills in the
 * missing values after it).
 *
 * Two passes: the map, walked to its end, puts each value's attribute
 * number into the bucket of its group (the values are stored by group, so
 * where a group starts is known only once the groups before it are
 * counted); then each group's values are read in store order, those of
 * [from, natts) kept.  Values below from are this row's already and stay
 * untouched: callers may have changed them in place (nodeAgg.c's grouping
 * sets NULL some out), as below tts_nvalid they may.
 *
 * rd's attinfo has an entry for each attribute of tupdesc; those whose
 * known[] flag is still false are filled in here when first met, so that a
 * slot that reads few rows does not pay for every attribute of a wide
 * table (after SLIM_READER_WARM_ROWS rows, all at once, with what each
 * group's attributes have in common).  rd also says which entries of
 * values/isnull read NULL already (SlimTailReader), and learns which this
 * row sets.
 */
int
slim_deform_tail_upto(HeapTupleHeader td, TupleDesc tupdesc,
					  SlimTailReader *rd, uint32 prefix_end,
					  int from, int natts, Datum *values, bool *isnull)
{
	int			first = HeapTupleHeaderGetNatts(td);
	const char *tp = (const char *) td + td->t_hoff;
	const char *p = tp + prefix_end;
	int			ntail;
	int			map_ntail;
	SlimTailEncoding encoding = slim_tail_header_get(&p, &ntail, &map_ntail);
	int			stored_natts = Min(first + ntail, tupdesc->natts);
	bool		has_missing = tupdesc->constr != NULL &&
		tupdesc->constr->missing != NULL;
	int			limit = has_missing ? Min(natts, stored_natts) : natts;
	int16		bucket[SLIM_GROUPS][SLIM_BUCKET_ROOM];
	int16	   *end[SLIM_GROUPS];
	int			nset;
	uint32		off;
	int			g;

	/*
	 * The caller fills in [limit, natts) with the missing values.  A tail
	 * may cover a column with a fast default (a stored NULL of it, read as
	 * NULL here), and a row stored before the column was added does not
	 * (it reads the default): rows of both ages alternate in a scan.  The
	 * bound (and slim_slot_getsomeattrs() telling rd what a standard row's
	 * deforming and its missing values wrote) keeps rd right for both.
	 */
	if (limit < natts)
		rd->null_hi = Min(rd->null_hi, Max(from, limit));
	if (limit <= from)
		return Max(from, limit);
	slim_tail_reader_wrote(rd, first);
	slim_tail_reader_reset(rd, from, limit, values, isnull);

	/* a slot that has read a few rows (a scan, not a lookup) knows all */
	if (unlikely(!rd->known_all) && ++rd->rows >= SLIM_READER_WARM_ROWS)
		slim_tail_reader_know_all(rd, tupdesc);

	for (g = 0; g < SLIM_GROUPS; g++)
		end[g] = bucket[g];
	if (likely(rd->known_all) && stored_natts == first + ntail)
		slim_tail_bucket_map(&p, encoding, first, map_ntail, rd->attinfo,
							 rd->known, tupdesc, false, end);
	else
		slim_tail_bucket_map(&p, encoding, first,
							 Min(map_ntail, stored_natts - first),
							 rd->attinfo, rd->known, tupdesc, true, end);

	/* past the map: each group of fixed-length values, then the varlenas */
	off = p - tp;
	nset = rd->nset;
	for (g = 0; g < SLIM_FIXED_GROUPS; g++)
	{
		int			count = end[g] - bucket[g];

		if (count == 0)
			continue;
		*end[g] = SLIM_BUCKET_END;
		off = slim_tail_fixed_group(bucket[g], count,
									rd->known_all ? rd->group_len[g] : -1,
									rd->group_byval[g], slim_group_align[g],
									rd->attinfo, tp,
									TYPEALIGN(slim_group_align[g], off),
									from, limit, values, isnull,
									rd->set, &nset);
	}
	*end[SLIM_VARLENA_GROUP] = SLIM_BUCKET_END;
	slim_tail_varlena_group(bucket[SLIM_VARLENA_GROUP], rd->attinfo,
							rd->known_all ? rd->varlena_align : 0, tp, off,
							from, limit, values, isnull, rd->set, &nset);
	rd->nset = nset;
	/* every entry this call set lies at or past from */
	rd->set_min = Min(rd->set_min, from);
	return limit;
}
