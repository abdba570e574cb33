/*-------------------------------------------------------------------------
 *
 * slim_form.c
 *	  The choice of a row's form: heap's, truncated or with a compressed
 *	  tail, by the table's slimheap.null_bitmap mode.
 *
 * The truncate former (slim_tuple.c) and the tail former (slim_tail.c)
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

#include "slim_format.h"
#include "slim_tail.h"

/*
 * Form a heap tuple from values and isnull arrays that match tupdesc
 * (slim_form_tuple() in slim_format.h takes heap's rows to heap first).
 *
 * SLIM_NULL_BITMAP_FULL returns exactly what heap_form_tuple() returns.
 * SLIM_NULL_BITMAP_TRUNCATE leaves out trailing NULL attributes beyond
 * min_natts and omits the bitmap when none of the stored attributes is NULL
 * (slim_tuple.c).  SLIM_NULL_BITMAP_COMPRESS stores the attributes past
 * prefix_natts in a compressed tail (slim_tail.c) when that is shorter and
 * allowed (docs/format.md); else it is truncate.  The trailing NULLs are
 * never visited beyond finding where they start.
 */
HeapTuple
slim_form_tuple_slow(TupleDesc tupdesc, const Datum *values,
					 const bool *isnull, SlimNullBitmap mode, int min_natts,
					 int prefix_natts)
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
		slim_stored_natts(tupdesc, isnull, min_natts) : natts;

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
		Max(prefix_natts, min_natts) < stored_natts &&
		MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) + BITMAPLEN(natts)) +
		size.data_len <= TOAST_TUPLE_THRESHOLD)
	{
		HeapTuple	tuple;

		tuple = slim_form_tail_tuple(tupdesc, values, isnull, stored_natts,
									 Max(prefix_natts, min_natts),
									 size.hoff + size.data_len);
		if (tuple != NULL)
			return tuple;
	}
	return slim_form_truncated_tuple(tupdesc, values, isnull, stored_natts,
									 &size);
}
