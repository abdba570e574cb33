/*-------------------------------------------------------------------------
 *
 * slim_format.h
 *	  The row formats of slimheap: which attributes a row stores, heap's
 *	  layout of their values, and the formers of each mode.
 *
 * The format layer (src/format/) is a set of pure functions of a tuple
 * descriptor and values; nothing here knows of relations or the table AM.
 * The compressed tail has its own header, slim_tail.h.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_format.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_FORMAT_H
#define SLIM_FORMAT_H

#include "access/htup.h"
#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "port/pg_bitutils.h"

/*
 * How the NULL bitmap of a new row is written (slimheap.null_bitmap).
 */
typedef enum SlimNullBitmap
{
	SLIM_NULL_BITMAP_FULL,		/* exactly what heap writes */
	SLIM_NULL_BITMAP_TRUNCATE,	/* trailing NULLs not stored (the default) */
	SLIM_NULL_BITMAP_COMPRESS	/* a compressed tail when shorter */
} SlimNullBitmap;

#define SLIM_NULL_BITMAP_DEFAULT	SLIM_NULL_BITMAP_TRUNCATE

/* what slim_measure_row() found of a row's first stored_natts attributes */
typedef struct SlimRowSize
{
	Size		hoff;			/* MAXALIGNed header, with a bitmap if any */
	Size		data_len;		/* heap's data length of the values */
	bool		hasnull;		/* one of them is NULL */
	bool		external;		/* one is a TOAST pointer */
	bool		toastable;		/* one could be compressed or moved out */
} SlimRowSize;

/* slim_layout.c: which attributes a row stores, heap's layout of values */
extern int	slim_missing_natts_upto(TupleDesc tupdesc, int natts);
extern int	slim_stored_natts(TupleDesc tupdesc, const bool *isnull,
							  int min_natts);
extern Size slim_data_size(TupleDesc tupdesc, const Datum *values,
						   const bool *isnull, int from, int to,
						   const int16 *attnums, Size off, bool *hasnull,
						   bool *external, bool *toastable);
extern Size slim_fill_data(TupleDesc tupdesc, const Datum *values,
						   const bool *isnull, int from, int to,
						   const int16 *attnums, char *start, Size off,
						   uint16 *infomask);
extern void slim_measure_row(TupleDesc tupdesc, const Datum *values,
							 const bool *isnull, int stored_natts,
							 SlimRowSize *size);
extern HeapTuple slim_alloc_tuple(TupleDesc tupdesc, int natts, Size hoff,
								  Size len, bool hasnull, const bool *isnull);

/*
 * The first attribute at or after i, below end, whose isnull flag is false;
 * end when there is none.  Wide sparse rows are mostly NULL: eight flags
 * are tested at once, and the non-NULL one among them is found by its bit
 * (a bool is 0 or 1, so a byte's lowest bit is the whole flag).  Rows with
 * few NULLs pay one test a value.
 */
static inline int
slim_next_value(const bool *isnull, int i, int end)
{
	if (likely(i < end) && !isnull[i])
		return i;
	for (; i + 8 <= end; i += 8)
	{
		uint64		flags;
		uint64		values;

		memcpy(&flags, &isnull[i], sizeof(flags));
		values = ~flags & UINT64CONST(0x0101010101010101);
		if (values != 0)
#ifndef WORDS_BIGENDIAN
			return i + pg_rightmost_one_pos64(values) / 8;
#else
			return i + 7 - pg_leftmost_one_pos64(values) / 8;
#endif
	}
	while (i < end && isnull[i])
		i++;
	return i;
}

/* slim_form.c: the form of a new row, by mode (see slim_form_tuple) */
extern HeapTuple slim_form_tuple_slow(TupleDesc tupdesc, const Datum *values,
									  const bool *isnull, SlimNullBitmap mode,
									  int min_natts, int prefix_natts);
extern bool slim_form_is_current(HeapTuple tuple, TupleDesc tupdesc,
								 SlimNullBitmap mode, int min_natts,
								 int prefix_natts);

/*
 * The floor of invariant T1 for rows of this descriptor (slim_layout.c);
 * most descriptors have no fast default, which is told here.
 */
static inline int
slim_missing_natts(TupleDesc tupdesc)
{
	if (tupdesc->constr == NULL || tupdesc->constr->missing == NULL)
		return 0;
	return slim_missing_natts_upto(tupdesc, tupdesc->natts);
}

/*
 * Form a heap tuple from values and isnull arrays that match tupdesc, in
 * mode (slim_form.c).  A row with nothing trailing to leave out, and any
 * row in full mode, is heap's own: it goes to heap_form_tuple() from here.
 */
static inline HeapTuple
slim_form_tuple(TupleDesc tupdesc, const Datum *values, const bool *isnull,
				SlimNullBitmap mode, int min_natts, int prefix_natts)
{
	if (mode == SLIM_NULL_BITMAP_FULL || tupdesc->natts == 0 ||
		(!isnull[tupdesc->natts - 1] && mode != SLIM_NULL_BITMAP_COMPRESS))
		return heap_form_tuple(tupdesc, (Datum *) values, (bool *) isnull);
	return slim_form_tuple_slow(tupdesc, values, isnull, mode, min_natts,
								prefix_natts);
}

/* slim_tuple.c: the truncated form, and reshaping a formed row's header */
extern HeapTuple slim_form_truncated_tuple(TupleDesc tupdesc,
										   const Datum *values,
										   const bool *isnull,
										   int stored_natts,
										   const SlimRowSize *size);
extern HeapTuple slim_refit_tuple(HeapTuple source, TupleDesc tupdesc,
								  SlimNullBitmap mode, int min_natts);
extern HeapTuple slim_expand_tuple(HeapTuple source, TupleDesc tupdesc);
extern HeapTuple slim_copy_alloc(HeapTuple source, Size len);
extern void slim_copy_finish(HeapTuple tuple, HeapTupleHeader src,
							 TupleDesc tupdesc);
extern HeapTupleHeader slim_minimal_alloc(Size len, Size extra,
										  MinimalTuple *result);
extern MinimalTuple slim_expand_minimal_tuple(HeapTuple source,
											  TupleDesc tupdesc, Size extra);

#endif							/* SLIM_FORMAT_H */
