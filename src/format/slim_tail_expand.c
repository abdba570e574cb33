/*-------------------------------------------------------------------------
 *
 * slim_tail_expand.c
 *	  heap's full form of a row with a compressed tail, made from its bytes:
 *	  the copies that leave a slimheap slot (invariant E1).
 *
 * Sorts, hashes, tuple stores and other tables' inserts copy whole rows.
 * heap copies its row with one memcpy; forming a tail row's copy from its
 * values walks every attribute of the descriptor twice (heap_form_tuple()),
 * hundreds of them on a wide table.  Here the prefix's bytes are copied as
 * they are, the bitmap is written from the map, and each tail value is
 * copied once, to where heap_fill_tuple() would put it.  docs/format.md
 * has both layouts.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/format/slim_tail_expand.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupdesc_details.h"
#include "access/tupmacs.h"

#include "slim_tail.h"

/*
 * A tail row and its full form: where the groups of its values start (each
 * group is in attribute order, so walking the values in attribute order
 * with one cursor a group finds each value where it lies), and the full
 * form's sizes.
 */
typedef struct SlimTailExpansion
{
	const char *tp;				/* the source's data */
	int			prefix_natts;	/* K */
	uint32		prefix_end;		/* the prefix's data, copied as it is */
	uint32		start[SLIM_FIXED_GROUPS + 1];	/* each group's first byte */
	int			n;				/* tail values, in attribute order */
	int16		attnum[MaxTupleAttributeNumber];	/* 0-based */
	bool		hasnull;		/* the full form has a NULL, hence a bitmap */
	Size		hoff;			/* the full form's t_hoff */
	Size		data_len;		/* and the length of its data */
} SlimTailExpansion;

/*
 * Walk the values of x in attribute order and lay them out as
 * heap_fill_tuple() does after the prefix's data: a varlena with a 1-byte
 * header unaligned, any other value by attalign (a tail value is never
 * external, C2, and has the header heap's former gave it).  With data,
 * copy them there, padding zeroed; returns the length of the data.
 */
static inline Size
slim_tail_expand_values(const SlimTailExpansion *x, const SlimAttInfo *attinfo,
						char *data)
{
	uint32		cursor[SLIM_FIXED_GROUPS + 1];
	Size		off = x->prefix_end;
	int			k;

	memcpy(cursor, x->start, sizeof(cursor));
	for (k = 0; k < x->n; k++)
	{
		const SlimAttInfo *ai = &attinfo[x->attnum[k]];
		const char *value;
		uint32		src;
		uint32		len;
		Size		aligned;

		src = slim_tail_value_start(ai, x->tp, cursor[ai->group]);
		value = x->tp + src;
		len = att_addlength_pointer(0, ai->attlen, value);
		cursor[ai->group] = src + len;

		aligned = off;
		if (ai->attlen != -1 || !VARATT_IS_SHORT(value))
			aligned = TYPEALIGN(ai->alignmask + 1, off);
		if (data != NULL)
		{
			memset(data + off, 0, aligned - off);
			memcpy(data + aligned, value, len);
		}
		off = aligned + len;
	}
	return off;
}

/*
 * Fill in x for tail row td read through tupdesc, whose attributes' packed
 * facts are attinfo (a wide descriptor's own entries are 100-odd bytes
 * apart: looking up the tail's at random costs more than the rest).  False
 * when the copy must be formed from the row's values: an attribute past
 * the tail has a missing value (a fast default added after the row was
 * stored), or the row has more attributes than tupdesc.
 */
static bool
slim_tail_expansion(HeapTupleHeader td, TupleDesc tupdesc,
					const SlimAttInfo *attinfo, SlimTailExpansion *x)
{
	int			first = HeapTupleHeaderGetNatts(td);
	const char *p;
	uint32		header;
	int			stored_natts;
	uint32		size[SLIM_FIXED_GROUPS] = {0};
	uint32		off;
	int			g;
	int			k;

	if (first > tupdesc->natts)
		return false;
	x->tp = (const char *) td + td->t_hoff;
	x->prefix_natts = first;
	x->prefix_end = slim_prefix_end(td, tupdesc);
	p = x->tp + x->prefix_end;
	header = slim_varint_get(&p);
	stored_natts = first + (int) (header >> 2);
	if (stored_natts > tupdesc->natts)
		return false;
	if (tupdesc->constr != NULL && tupdesc->constr->missing != NULL)
	{
		for (k = stored_natts; k < tupdesc->natts; k++)
			if (tupdesc->constr->missing[k].am_present)
				return false;
	}

	x->n = slim_read_map(&p, (SlimTailEncoding) (header & 3), first,
						 stored_natts - first, x->attnum);

	/* the groups of fixed-length values first, then the varlenas */
	for (k = 0; k < x->n; k++)
	{
		const SlimAttInfo *ai = &attinfo[x->attnum[k]];

		if (ai->isfixed)
			size[ai->group] = TYPEALIGN(ai->alignmask + 1, size[ai->group]) +
				ai->attlen;
	}
	off = p - x->tp;
	for (g = 0; g < SLIM_FIXED_GROUPS; g++)
	{
		if (size[g] > 0)
			off = TYPEALIGN(slim_group_align[g], off);
		x->start[g] = off;
		off += size[g];
	}
	x->start[SLIM_FIXED_GROUPS] = off;

	x->data_len = slim_tail_expand_values(x, attinfo, NULL);
	x->hasnull = (td->t_infomask & HEAP_HASNULL) != 0 ||
		x->n < tupdesc->natts - first;
	x->hoff = MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
					   (x->hasnull ? BITMAPLEN(tupdesc->natts) : 0));
	return true;
}

/*
 * Write the full form of src into dst from t_infomask2 on (so dst may be a
 * minimal tuple seen through MINIMAL_TUPLE_OFFSET): header, bitmap, data.
 */
static void
slim_tail_expand_into(HeapTupleHeader src, TupleDesc tupdesc,
					  const SlimAttInfo *attinfo, const SlimTailExpansion *x,
					  HeapTupleHeader dst)
{
	int			first = x->prefix_natts;
	char	   *data = (char *) dst + x->hoff;
	Size		data_len PG_USED_FOR_ASSERTS_ONLY;
	int			k;

	dst->t_infomask2 = src->t_infomask2 & ~SLIM_HEAP_TAIL;
	HeapTupleHeaderSetNatts(dst, tupdesc->natts);
	dst->t_infomask = src->t_infomask & ~HEAP_HASNULL;
	dst->t_hoff = x->hoff;

	/* the bitmap: the prefix's bits, then one for each tail value */
	memset(dst->t_bits, 0, x->hoff - offsetof(HeapTupleHeaderData, t_bits));
	if (x->hasnull)
	{
		dst->t_infomask |= HEAP_HASNULL;
		if (src->t_infomask & HEAP_HASNULL)
			memcpy(dst->t_bits, src->t_bits, BITMAPLEN(first));
		else
			memset(dst->t_bits, 0xFF, BITMAPLEN(first));
		if (first % 8 != 0)
			dst->t_bits[first / 8] &= (1 << (first % 8)) - 1;
		for (k = 0; k < x->n; k++)
			dst->t_bits[x->attnum[k] / 8] |= 1 << (x->attnum[k] % 8);
	}

	memcpy(data, x->tp, x->prefix_end);
	data_len = slim_tail_expand_values(x, attinfo, data);
	Assert(data_len == x->data_len);
}

/*
 * A palloc'd copy of tail row source in heap's full form for tupdesc
 * (attinfo: slim_att_info() of it), its header before t_infomask2 copied
 * as heap_copytuple() copies it; NULL when the caller must form it from the
 * row's values (slim_tail_expansion()).
 */
HeapTuple
slim_tail_expand_tuple(HeapTuple source, TupleDesc tupdesc,
					   const SlimAttInfo *attinfo)
{
	HeapTupleHeader src = source->t_data;
	SlimTailExpansion x;
	HeapTuple	tuple;

	Assert(SlimHeaderHasTail(src));
	if (!slim_tail_expansion(src, tupdesc, attinfo, &x))
		return NULL;

	tuple = slim_copy_alloc(source, x.hoff + x.data_len);
	slim_tail_expand_into(src, tupdesc, attinfo, &x, tuple->t_data);
	slim_copy_finish(tuple, src, tupdesc);
	return tuple;
}

/*
 * The same as a minimal tuple with extra zeroed bytes in front (18+; 0
 * before), or NULL.
 */
MinimalTuple
slim_tail_expand_minimal_tuple(HeapTuple source, TupleDesc tupdesc,
							   const SlimAttInfo *attinfo, Size extra)
{
	SlimTailExpansion x;
	MinimalTuple result;
	HeapTupleHeader td;

	Assert(SlimHeaderHasTail(source->t_data));
	if (!slim_tail_expansion(source->t_data, tupdesc, attinfo, &x))
		return NULL;

	td = slim_minimal_alloc(x.hoff + x.data_len, extra, &result);
	slim_tail_expand_into(source->t_data, tupdesc, attinfo, &x, td);
	return result;
}
