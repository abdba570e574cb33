/*-------------------------------------------------------------------------
 *
 * slim_truncate.c
 *	  Forming heap tuples whose NULL bitmap stops at the last stored
 *	  attribute.
 *
 * A heap tuple header records how many attributes the tuple stores (natts);
 * every reader of heap tuples in core returns the column's "missing" value
 * (NULL, or the fast default of a column added with ADD COLUMN ... DEFAULT)
 * for attributes past it.  So a row whose trailing attributes are NULL can be
 * stored with a smaller natts, a bitmap that covers only the stored
 * attributes, and no bitmap at all when none of those is NULL.  The result is
 * a standard heap tuple: nothing that reads it needs to know about slimheap.
 *
 * The same header can be given to a tuple that is already formed (a row of
 * another table, INSERT ... SELECT) without touching its data, and taken
 * back: copies of a row that leave slimheap get every attribute again, so
 * that no other table reads its own fast defaults where the row has NULLs
 * (docs/slot.md).
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/format/slim_truncate.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/tupdesc_details.h"
#include "catalog/pg_type.h"
#include "port/pg_bitutils.h"
#include "utils/expandeddatum.h"

#include "slim_compat.h"
#include "slim_format.h"

/*
 * The truncated form of a row that stores stored_natts attributes, measured
 * by slim_measure_row().  The data bytes are heap's (NULLs take no data
 * bytes); only the header differs.
 */
HeapTuple
slim_form_truncated_tuple(TupleDesc tupdesc, const Datum *values,
						  const bool *isnull, int stored_natts,
						  const SlimRowSize *size)
{
	int			natts = tupdesc->natts;
	HeapTuple	tuple;

	if (stored_natts == natts)
		return heap_form_tuple(tupdesc, (Datum *) values, (bool *) isnull);

	/*
	 * heap_insert(), heap_update() and the rewrite of CLUSTER run the toaster
	 * on rows longer than TOAST_TUPLE_THRESHOLD.  A row over the threshold
	 * in heap's form (which has a bitmap for every attribute) but under it
	 * in ours would escape the toaster and be stored longer than heap stores
	 * it, so such a row gets heap's form.
	 */
	if (size->toastable &&
		size->hoff + size->data_len <= TOAST_TUPLE_THRESHOLD &&
		MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) + BITMAPLEN(natts)) +
		size->data_len > TOAST_TUPLE_THRESHOLD)
		return heap_form_tuple(tupdesc, (Datum *) values, (bool *) isnull);

	tuple = slim_alloc_tuple(tupdesc, stored_natts, size->hoff,
							 size->hoff + size->data_len, size->hasnull,
							 isnull);
	slim_fill_data(tupdesc, values, isnull, 0, stored_natts, NULL,
				   (char *) tuple->t_data + size->hoff, 0,
				   &tuple->t_data->t_infomask);
	return tuple;
}

/*
 * The number of the last attribute a stored tuple holds a value for: its
 * natts when it has no bitmap, else the last bit set (0 when all are NULL).
 */
static int
slim_last_value(HeapTupleHeader td)
{
	int			natts = HeapTupleHeaderGetNatts(td);
	int			byte;

	if (!(td->t_infomask & HEAP_HASNULL))
		return natts;

	byte = BITMAPLEN(natts) - 1;
	/* bits past natts in the last byte are never set; mask them anyway */
	if (byte >= 0 && natts % 8 != 0)
	{
		uint8		last = td->t_bits[byte] & ((1 << (natts % 8)) - 1);

		if (last != 0)
			return byte * 8 + pg_leftmost_one_pos32(last) + 1;
		byte--;
	}
	for (; byte >= 0; byte--)
	{
		if (td->t_bits[byte] != 0)
			return byte * 8 + pg_leftmost_one_pos32(td->t_bits[byte]) + 1;
	}
	return 0;
}

/*
 * The header a tuple with src's data and natts attributes has: its t_hoff,
 * and whether it has a bitmap.  Attributes past src's own natts are NULL.
 */
static Size
slim_reshaped_hoff(HeapTupleHeader src, int natts, bool *hasnull)
{
	int			src_natts = HeapTupleHeaderGetNatts(src);

	*hasnull = natts > src_natts || slim_header_has_null(src, natts);
	return MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
					(*hasnull ? BITMAPLEN(natts) : 0));
}

/*
 * Write src's row with natts attributes into dst: t_infomask2, t_infomask,
 * t_hoff, the bitmap and the data, nothing before t_infomask2 (so dst may be
 * a minimal tuple seen through MINIMAL_TUPLE_OFFSET).  The data bytes do not
 * depend on the bitmap: NULLs take none, and t_hoff keeps alignment.
 */
static void
slim_reshape_into(HeapTupleHeader src, Size data_len, int natts,
				  bool hasnull, Size hoff, HeapTupleHeader dst)
{
	int			kept = Min(HeapTupleHeaderGetNatts(src), natts);
	Size		bitmap_len PG_USED_FOR_ASSERTS_ONLY = hasnull ? BITMAPLEN(natts) : 0;

	dst->t_infomask2 = src->t_infomask2;
	HeapTupleHeaderSetNatts(dst, natts);
	dst->t_infomask = src->t_infomask & ~HEAP_HASNULL;
	dst->t_hoff = hoff;

	/* the bitmap, then zeroes up to the data */
	memset(dst->t_bits, 0, hoff - offsetof(HeapTupleHeaderData, t_bits));
	if (hasnull)
	{
		dst->t_infomask |= HEAP_HASNULL;
		if (src->t_infomask & HEAP_HASNULL)
			memcpy(dst->t_bits, src->t_bits, kept / 8);
		else
			memset(dst->t_bits, 0xFF, kept / 8);
		if (kept % 8 != 0)
		{
			uint8		mask = (1 << (kept % 8)) - 1;

			dst->t_bits[kept / 8] = (src->t_infomask & HEAP_HASNULL) ?
				(src->t_bits[kept / 8] & mask) : mask;
		}
	}
	Assert(offsetof(HeapTupleHeaderData, t_bits) + bitmap_len <= hoff);
	memcpy((char *) dst + hoff, (char *) src + src->t_hoff, data_len);
}

/*
 * A palloc'd tuple of len bytes that will hold a full or reshaped copy of
 * source: its address, and what precedes t_infomask2 copied as
 * heap_copytuple() copies it.  The caller writes the rest, then calls
 * slim_copy_finish().
 */
HeapTuple
slim_copy_alloc(HeapTuple source, Size len)
{
	HeapTuple	tuple = (HeapTuple) palloc(HEAPTUPLESIZE + len);
	HeapTupleHeader td = (HeapTupleHeader) ((char *) tuple + HEAPTUPLESIZE);

	tuple->t_data = td;
	tuple->t_len = len;
	tuple->t_self = source->t_self;
	tuple->t_tableOid = source->t_tableOid;
	memcpy(td, source->t_data, offsetof(HeapTupleHeaderData, t_infomask2));
	return tuple;
}

/*
 * A composite-datum header (a row formed, not yet stored) is made anew on
 * builds with versioned datums, which record the row type's version of the
 * stored attributes; elsewhere its length is left as copied:
 * heap_copy_tuple_as_datum() sets it before the tuple is used as a datum.
 */
void
slim_copy_finish(HeapTuple tuple, HeapTupleHeader src, TupleDesc tupdesc)
{
#ifdef SLIM_HAVE_HEAP_TUPLE_SET_DATUM
	if (HeapTupleHeaderIsDatum(src))
		slim_tuple_set_datum(tuple->t_data, tupdesc, tuple->t_len);
#endif
}

/*
 * A palloc'd minimal tuple of a heap tuple of len bytes (from t_infomask2
 * on, the caller's to write), extra zeroed bytes in front (18+; 0 before);
 * returns the header through which the caller writes it.
 */
HeapTupleHeader
slim_minimal_alloc(Size len, Size extra, MinimalTuple *result)
{
	Size		mlen = len - MINIMAL_TUPLE_OFFSET;
	char	   *mem = palloc(extra + mlen);

	memset(mem, 0, extra + offsetof(MinimalTupleData, t_infomask2));
	*result = (MinimalTuple) (mem + extra);
	(*result)->t_len = mlen;
	return (HeapTupleHeader) ((char *) *result - MINIMAL_TUPLE_OFFSET);
}

/*
 * A palloc'd copy of source whose header stores natts attributes of
 * tupdesc.  A composite-datum header (a row formed, not yet stored) is made
 * anew: versioned datums record the row type's version of the stored
 * attributes, which changes with natts.
 */
static HeapTuple
slim_reshape_tuple(HeapTuple source, int natts, TupleDesc tupdesc)
{
	HeapTupleHeader src = source->t_data;
	Size		data_len = source->t_len - src->t_hoff;
	bool		hasnull;
	Size		hoff = slim_reshaped_hoff(src, natts, &hasnull);
	HeapTuple	tuple = slim_copy_alloc(source, hoff + data_len);

	slim_reshape_into(src, data_len, natts, hasnull, hoff, tuple->t_data);
	slim_copy_finish(tuple, src, tupdesc);
	return tuple;
}

/*
 * Give a stored tuple the header a new row of a table with desc_natts
 * attributes gets in this mode: trailing NULLs left out down to missing_floor
 * (truncate), or every attribute (full).  The attributes past the source's
 * own natts must be NULL, not fast defaults.
 *
 * This is INSERT ... SELECT's path: the row needs no deforming, only a new
 * header.  Returns NULL when the source already has that form.
 */
HeapTuple
slim_refit_tuple(HeapTuple source, TupleDesc tupdesc, SlimNullBitmap mode,
				 int missing_floor)
{
	HeapTupleHeader src = source->t_data;
	int			src_natts = HeapTupleHeaderGetNatts(src);
	int			desc_natts = tupdesc->natts;
	int			natts;

	if (mode == SLIM_NULL_BITMAP_FULL || src_natts > desc_natts)
		natts = Max(desc_natts, src_natts);
	else
		natts = Max(slim_last_value(src), Min(missing_floor, desc_natts));

	if (natts < desc_natts)
	{
		bool		hasnull;
		Size		data_len = source->t_len - src->t_hoff;
		Size		hoff = slim_reshaped_hoff(src, natts, &hasnull);

		/* the TOAST band: see slim_form_tuple() */
		if (hoff + data_len <= TOAST_TUPLE_THRESHOLD &&
			MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
					 BITMAPLEN(desc_natts)) + data_len > TOAST_TUPLE_THRESHOLD)
			natts = desc_natts;
	}

	if (natts == src_natts)
		return NULL;
	return slim_reshape_tuple(source, natts, tupdesc);
}

/*
 * A palloc'd copy of a stored tuple with every attribute of its descriptor
 * (invariant E1): the form copies leaving a slimheap slot take.
 */
HeapTuple
slim_expand_tuple(HeapTuple source, TupleDesc tupdesc)
{
	if (HeapTupleHeaderGetNatts(source->t_data) >= tupdesc->natts)
		return heap_copytuple(source);
	return slim_reshape_tuple(source, tupdesc->natts, tupdesc);
}

/*
 * The same as a minimal tuple, for sorts, hashes, tuple stores and parallel
 * workers' queues.
 */
MinimalTuple
slim_expand_minimal_tuple(HeapTuple source, TupleDesc tupdesc, Size extra)
{
	int			desc_natts = tupdesc->natts;
	HeapTupleHeader src = source->t_data;
	Size		data_len = source->t_len - src->t_hoff;
	bool		hasnull;
	Size		hoff;
	MinimalTuple result;
	HeapTupleHeader td;

	if (HeapTupleHeaderGetNatts(src) >= desc_natts)
		return slim_minimal_tuple_from_heap_tuple(source, extra);

	/* extra: zeroed room the caller keeps in front of the tuple (18+) */
	hoff = slim_reshaped_hoff(src, desc_natts, &hasnull);
	td = slim_minimal_alloc(hoff + data_len, extra, &result);
	slim_reshape_into(src, data_len, desc_natts, hasnull, hoff, td);
	return result;
}
