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

#include "slim_compat.h"
#include "slim_tail.h"

/* where the values of a tail row lie, and where its full form puts them */
typedef struct SlimTailLayout
{
	int			prefix_natts;	/* K */
	uint32		prefix_end;		/* the prefix's data, copied as it is */
	bool		hasnull;		/* the full form has a NULL, hence a bitmap */
	Size		hoff;			/* the full form's t_hoff */
	Size		data_len;		/* and the length of its data */
	int			n;				/* tail values, in attribute order: */
	int16		attnum[MaxTupleAttributeNumber];	/* 0-based */
	uint32		src_off[MaxTupleAttributeNumber];	/* offsets from t_hoff */
	uint32		dst_off[MaxTupleAttributeNumber];
	uint32		len[MaxTupleAttributeNumber];
} SlimTailLayout;

/*
 * Fill in lay for tail row td read through tupdesc, whose attributes'
 * packed facts are attinfo (a wide descriptor's own entries are 100-odd
 * bytes apart: looking up the tail's at random costs more than the rest);
 * false when an attribute past the tail has a missing value (a fast default
 * added after the row was stored): only the row's values can tell it, so
 * the caller forms the copy from them.
 */
static bool
slim_tail_layout(HeapTupleHeader td, TupleDesc tupdesc,
				 const SlimAttInfo *attinfo, SlimTailLayout *lay)
{
	int			first = HeapTupleHeaderGetNatts(td);
	const char *tp = (const char *) td + td->t_hoff;
	const char *p;
	uint32		header;
	int			stored_natts;
	int16		ordered[MaxTupleAttributeNumber];
	uint32		by_attnum[MaxTupleAttributeNumber];
	int			start[SLIM_FIXED_GROUPS + 2] = {0};
	uint32		off;
	int			k;

	lay->prefix_natts = first;
	lay->prefix_end = slim_prefix_end(td, tupdesc);
	p = tp + lay->prefix_end;
	header = slim_varint_get(&p);
	stored_natts = Min(first + (int) (header >> 2), tupdesc->natts);

	if (tupdesc->constr != NULL && tupdesc->constr->missing != NULL)
	{
		for (k = stored_natts; k < tupdesc->natts; k++)
			if (tupdesc->constr->missing[k].am_present)
				return false;
	}

	lay->n = slim_read_map(&p, (SlimTailEncoding) (header & 3), first,
						   stored_natts - first, lay->attnum);

	/* the store order (docs/format.md): a counting sort on the groups */
	for (k = 0; k < lay->n; k++)
		start[attinfo[lay->attnum[k]].group + 1]++;
	for (k = 1; k < lengthof(start); k++)
		start[k] += start[k - 1];
	for (k = 0; k < lay->n; k++)
		ordered[start[attinfo[lay->attnum[k]].group]++] = lay->attnum[k];

	/* the source: the values in store order, each aligned as it was stored */
	off = p - tp;
	for (k = 0; k < lay->n; k++)
	{
		const SlimAttInfo *ai = &attinfo[ordered[k]];

		if (ai->attlen == -1)
			off = att_align_pointer(off, ai->attalign, -1, tp + off);
		else
			off = TYPEALIGN(ai->alignmask + 1, off);
		by_attnum[ordered[k]] = off;
		off = att_addlength_pointer(off, ai->attlen, tp + off);
	}

	/*
	 * The full form: after the prefix's data, the values in attribute order,
	 * aligned as heap_fill_tuple() aligns them (a varlena with a 1-byte
	 * header not at all); a tail value is never external (C2) and has the
	 * header heap's former gave it.
	 */
	off = lay->prefix_end;
	for (k = 0; k < lay->n; k++)
	{
		const SlimAttInfo *ai = &attinfo[lay->attnum[k]];
		uint32		src = by_attnum[lay->attnum[k]];

		if (ai->attlen != -1 || !VARATT_IS_SHORT(tp + src))
			off = TYPEALIGN(ai->alignmask + 1, off);
		lay->src_off[k] = src;
		lay->dst_off[k] = off;
		lay->len[k] = att_addlength_pointer(0, ai->attlen, tp + src);
		off += lay->len[k];
	}
	lay->data_len = off;
	lay->hasnull = (td->t_infomask & HEAP_HASNULL) != 0 ||
		lay->n < tupdesc->natts - first;
	lay->hoff = MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
						 (lay->hasnull ? BITMAPLEN(tupdesc->natts) : 0));
	return true;
}

/*
 * Write the full form of src into dst from t_infomask2 on (so dst may be a
 * minimal tuple seen through MINIMAL_TUPLE_OFFSET): header, bitmap, data.
 */
static void
slim_tail_expand_into(HeapTupleHeader src, TupleDesc tupdesc,
					  const SlimTailLayout *lay, HeapTupleHeader dst)
{
	int			natts = tupdesc->natts;
	int			first = lay->prefix_natts;
	const char *tp = (const char *) src + src->t_hoff;
	char	   *data = (char *) dst + lay->hoff;
	int			k;

	dst->t_infomask2 = src->t_infomask2 & ~SLIM_HEAP_TAIL;
	HeapTupleHeaderSetNatts(dst, natts);
	dst->t_infomask = src->t_infomask & ~HEAP_HASNULL;
	dst->t_hoff = lay->hoff;

	/* the bitmap: the prefix's bits, then one for each tail value */
	memset(dst->t_bits, 0, lay->hoff - offsetof(HeapTupleHeaderData, t_bits));
	if (lay->hasnull)
	{
		dst->t_infomask |= HEAP_HASNULL;
		if (src->t_infomask & HEAP_HASNULL)
			memcpy(dst->t_bits, src->t_bits, BITMAPLEN(first));
		else
			memset(dst->t_bits, 0xFF, BITMAPLEN(first));
		if (first % 8 != 0)
			dst->t_bits[first / 8] &= (1 << (first % 8)) - 1;
		for (k = 0; k < lay->n; k++)
			dst->t_bits[lay->attnum[k] / 8] |= 1 << (lay->attnum[k] % 8);
	}
	Assert(!lay->hasnull || natts > 0);

	/* the data: padding is zero, as in a tuple heap forms */
	memcpy(data, tp, lay->prefix_end);
	memset(data + lay->prefix_end, 0, lay->data_len - lay->prefix_end);
	for (k = 0; k < lay->n; k++)
		memcpy(data + lay->dst_off[k], tp + lay->src_off[k], lay->len[k]);
}

/*
 * A palloc'd copy of tail row source in heap's full form for tupdesc
 * (attinfo: slim_att_info() of it), its header before t_infomask2 copied
 * as heap_copytuple() copies it; NULL when the caller must form it from the
 * row's values (slim_tail_layout()).
 */
HeapTuple
slim_tail_expand_tuple(HeapTuple source, TupleDesc tupdesc,
					   const SlimAttInfo *attinfo)
{
	HeapTupleHeader src = source->t_data;
	SlimTailLayout lay;
	HeapTuple	tuple;
	HeapTupleHeader td;

	Assert(SlimHeaderHasTail(src));
	if (!slim_tail_layout(src, tupdesc, attinfo, &lay))
		return NULL;

	tuple = (HeapTuple) palloc(HEAPTUPLESIZE + lay.hoff + lay.data_len);
	td = (HeapTupleHeader) ((char *) tuple + HEAPTUPLESIZE);
	tuple->t_data = td;
	tuple->t_len = lay.hoff + lay.data_len;
	tuple->t_self = source->t_self;
	tuple->t_tableOid = source->t_tableOid;
	memcpy(td, src, offsetof(HeapTupleHeaderData, t_infomask2));
	slim_tail_expand_into(src, tupdesc, &lay, td);
#ifdef SLIM_HAVE_HEAP_TUPLE_SET_DATUM
	if (HeapTupleHeaderIsDatum(src))
		slim_tuple_set_datum(td, tupdesc, tuple->t_len);
#endif
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
	SlimTailLayout lay;
	Size		len;
	char	   *mem;
	MinimalTuple result;

	Assert(SlimHeaderHasTail(source->t_data));
	if (!slim_tail_layout(source->t_data, tupdesc, attinfo, &lay))
		return NULL;

	len = lay.hoff + lay.data_len - MINIMAL_TUPLE_OFFSET;
	mem = palloc(extra + len);
	memset(mem, 0, extra + offsetof(MinimalTupleData, t_infomask2));
	result = (MinimalTuple) (mem + extra);
	result->t_len = len;
	slim_tail_expand_into(source->t_data, tupdesc, &lay,
						  (HeapTupleHeader) ((char *) result - MINIMAL_TUPLE_OFFSET));
	return result;
}
