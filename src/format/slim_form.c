/*-------------------------------------------------------------------------
 *
 * slim_form.c
 *	  The choice of a row's form: heap's, truncated or with a compressed
 *	  tail, by the table's slimheap.null_bitmap mode.
 *
 * The truncate former (slim_truncate.c) and the tail former (slim_tail.c)
 * stand side by side; this file measures the row once (slim_layout.c) and
 * hands it to the one that applies.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/format/slim_form.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/tupmacs.h"

#include "slim_format.h"
#include "slim_tail.h"

/*
 * Form a heap tuple from values and isnull arrays that match tupdesc
 * (slim_form_tuple() in slim_format.h takes heap's rows to heap first).
 *
 * SLIM_NULL_BITMAP_FULL returns exactly what heap_form_tuple() returns.
 * SLIM_NULL_BITMAP_TRUNCATE leaves out trailing NULL attributes beyond
 * missing_floor and omits the bitmap when none of the stored attributes is NULL
 * (slim_truncate.c).  SLIM_NULL_BITMAP_COMPRESS stores the attributes past
 * prefix_floor in a compressed tail (slim_tail.c) when that is shorter and
 * allowed (docs/format.md), through missing_floor at least (its NULLs
 * stored at the tail's end: docs/fast-defaults.md); else it is truncate.
 * The trailing NULLs are never visited beyond finding where they start.
 */
HeapTuple
slim_form_tuple_slow(TupleDesc tupdesc, const Datum *values,
					 const bool *isnull, SlimNullBitmap mode, int missing_floor,
					 int prefix_floor)
{
	int			natts = tupdesc->natts;
	int			stored_natts;
	SlimRowSize size;

	/* heap's form, or nothing trailing to leave out: heap's own former */
	if (mode == SLIM_NULL_BITMAP_FULL || natts == 0 ||
		(!isnull[natts - 1] && mode != SLIM_NULL_BITMAP_COMPRESS))
		return heap_form_tuple(tupdesc, (Datum *) values, (bool *) isnull);

	if (natts > MaxTupleAttributeNumber)
		ereport(ERROR,
				(errcode(ERRCODE_TOO_MANY_COLUMNS),
				 errmsg("number of columns (%d) exceeds limit (%d)",
						natts, MaxTupleAttributeNumber)));

	stored_natts = isnull[natts - 1] ?
		slim_stored_natts(tupdesc, isnull, missing_floor) : natts;

	/* nothing to leave out: heap's own former gives the same bytes */
	if (stored_natts == natts && mode != SLIM_NULL_BITMAP_COMPRESS)
		return heap_form_tuple(tupdesc, (Datum *) values, (bool *) isnull);

	slim_measure_row(tupdesc, values, isnull, stored_natts, &size);

	/*
	 * A tail row must never meet the toaster (invariant C2): no external
	 * value, and short enough in heap's own form (a bitmap for every
	 * attribute) that heap would not have compressed anything either.
	 */
	if (mode == SLIM_NULL_BITMAP_COMPRESS && size.hasnull && !size.external &&
		prefix_floor < stored_natts &&
		MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) + BITMAPLEN(natts)) +
		size.data_len <= TOAST_TUPLE_THRESHOLD)
	{
		HeapTuple	tuple;

		tuple = slim_form_tail_tuple(tupdesc, values, isnull, stored_natts,
									 prefix_floor, size.hoff + size.data_len);
		if (tuple != NULL)
			return tuple;
	}
	return slim_form_truncated_tuple(tupdesc, values, isnull, stored_natts,
									 &size);
}

/*
 * An upper bound of the data length of a tail row's values in heap's form
 * (slim_measure_row()'s data_len, which the former's C2 test reads): its
 * own data, plus the most padding heap's layout could put before each
 * value of its tail (the tail lays values out by alignment, heap in
 * attribute order; its map and header take room heap's form has not).
 */
static Size
slim_tail_heap_len_bound(HeapTuple tuple, TupleDesc tupdesc)
{
	HeapTupleHeader td = tuple->t_data;
	int16		positions[MaxTupleAttributeNumber];
	Size		len = tuple->t_len - td->t_hoff;
	int			n = slim_tail_positions(td, tupdesc, positions);
	int			k;

	for (k = 0; k < n; k++)
		len += att_align_nominal(1, TupleDescAttr(tupdesc, positions[k])->attalign) - 1;
	return len;
}

/*
 * Would slim_form_tuple() give tuple, a stored row of a relation with this
 * descriptor, the form it has, from the values it reads?  Its answer lets
 * a rewrite copy the row as it is (19's heap copies rows so too) instead
 * of forming it again; false whenever unsure, as a row formed again is
 * always right.  The caller has checked that td reads as it will after
 * the rewrite (no dropped column, no fast default past what it stores).
 * The former's choices are deterministic: the same values and floors give
 * the same form, so it suffices that td has the form those floors give:
 *
 *  - heap's form (FULL): every attribute stored, no tail;
 *  - truncate: no tail, at least missing_floor stored, the last stored one a
 *    value unless that is the floor, a bitmap only when a stored one is
 *    NULL, and not a row the toaster must see in heap's form;
 *  - compress: a tail row whose prefix is the former's floor, that stores
 *    what the former stores (through its last value, or through
 *    missing_floor with the NULLs before it) and that is short enough in
 *    heap's form (C2), or a row as truncate forms it that the former could
 *    not give a tail (nothing past the floor, or no NULL).
 */
bool
slim_form_is_current(HeapTuple tuple, TupleDesc tupdesc,
					 SlimNullBitmap mode, int missing_floor,
					 const SlimFloor *floor)
{
	HeapTupleHeader td = tuple->t_data;
	int			natts = HeapTupleHeaderGetNatts(td);
	Size		full_hoff = MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
									 BITMAPLEN(tupdesc->natts));
	bool		stored_null;
	int			prefix_floor;

	if (natts > tupdesc->natts)
		return false;
	prefix_floor = mode == SLIM_NULL_BITMAP_COMPRESS ?
		slim_floor_stored(floor, td, tupdesc) : tupdesc->natts;
	/* as slim_floor_row() gives it where a tail may not end with NULLs */
	if (mode == SLIM_NULL_BITMAP_COMPRESS && !floor->ends_null)
		prefix_floor = Max(prefix_floor, missing_floor);

	/*
	 * Both formers look at the row's length in heap's form, with a bitmap
	 * for every attribute of the descriptor, which ADD COLUMN lengthens: a
	 * tail only while that is under the toaster's threshold (C2), and heap's
	 * form for a truncated row whose own form is not over it while heap's is
	 * (slim_form_truncated_tuple()).
	 */
	if (SlimHeaderHasTail(td))
	{
		int			stored_natts;
		int			trailing_nulls;

		if (mode != SLIM_NULL_BITMAP_COMPRESS || natts != prefix_floor)
			return false;
		/* through missing_floor: its last value, or NULLs up to the floor */
		trailing_nulls = slim_tail_trailing_nulls(td, tupdesc, &stored_natts);
		if (trailing_nulls == 0 ? stored_natts < missing_floor :
			stored_natts != missing_floor)
			return false;
		return full_hoff + slim_tail_heap_len_bound(tuple, tupdesc) <=
			TOAST_TUPLE_THRESHOLD;
	}
	if (mode == SLIM_NULL_BITMAP_FULL)
		return natts == tupdesc->natts;
	if (natts < missing_floor)
		return false;
	if (natts < tupdesc->natts &&
		full_hoff + (tuple->t_len - td->t_hoff) > TOAST_TUPLE_THRESHOLD)
		return false;
	stored_null = slim_header_has_null(td, natts);
	if ((td->t_infomask & HEAP_HASNULL) && !stored_null)
		return false;
	/* trailing NULLs the former leaves out */
	if (natts > missing_floor && stored_null && att_isnull(natts - 1, td->t_bits))
		return false;
	return mode == SLIM_NULL_BITMAP_TRUNCATE || !stored_null ||
		natts <= prefix_floor;
}
