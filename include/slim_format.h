/*-------------------------------------------------------------------------
 *
 * slim_format.h
 *	  The row formats of slimheap: which attributes a row stores, heap's
 *	  layout of their values, and the formers of each mode.
 *
 * The format layer (src/format/) is a set of pure functions of a tuple
 * descriptor and values; nothing here knows of relations or the table AM.
 * The leaf helpers every former stands on are slim_layout.h's, which
 * this header includes: the inline code here calls down into them and
 * into slim_form.c, and nothing there calls back into this header's
 * inline code.  The compressed tail has its own header, slim_tail.h.
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

#include "slim_floor.h"
#include "slim_layout.h"

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

/* slim_form.c: the form of a new row, by mode (see slim_form_tuple) */
extern HeapTuple slim_form_tuple_slow(TupleDesc tupdesc, const Datum *values,
									  const bool *isnull, SlimNullBitmap mode,
									  int missing_floor, int prefix_floor);
extern bool slim_form_is_current(HeapTuple tuple, TupleDesc tupdesc,
								 SlimNullBitmap mode, int missing_floor,
								 const SlimFloor *floor);

/*
 * The floor of invariant T1 for rows of this descriptor (slim_layout.c);
 * most descriptors have no fast default, which is told here.
 */
static inline int
slim_missing_floor(TupleDesc tupdesc)
{
	if (tupdesc->constr == NULL || tupdesc->constr->missing == NULL)
		return 0;
	return slim_missing_floor_upto(tupdesc, tupdesc->natts);
}

/*
 * Form a heap tuple from values and isnull arrays that match tupdesc, in
 * mode (slim_form.c).  A row with nothing trailing to leave out, and any
 * row in full mode, is heap's own: it goes to heap_form_tuple() from here.
 */
static inline HeapTuple
slim_form_tuple(TupleDesc tupdesc, const Datum *values, const bool *isnull,
				SlimNullBitmap mode, int missing_floor, int prefix_floor)
{
	if (mode == SLIM_NULL_BITMAP_FULL || tupdesc->natts == 0 ||
		(!isnull[tupdesc->natts - 1] && mode != SLIM_NULL_BITMAP_COMPRESS))
		return heap_form_tuple(tupdesc, (Datum *) values, (bool *) isnull);
	return slim_form_tuple_slow(tupdesc, values, isnull, mode, missing_floor,
								prefix_floor);
}

/* slim_truncate.c: the truncated form, and reshaping a formed row's header */
extern HeapTuple slim_form_truncated_tuple(TupleDesc tupdesc,
										   const Datum *values,
										   const bool *isnull,
										   int stored_natts,
										   const SlimRowSize *size);
extern HeapTuple slim_refit_tuple(HeapTuple source, TupleDesc tupdesc,
								  SlimNullBitmap mode, int missing_floor);
extern HeapTuple slim_expand_tuple(HeapTuple source, TupleDesc tupdesc);
extern HeapTuple slim_copy_alloc(HeapTuple source, Size len);
extern void slim_copy_finish(HeapTuple tuple, HeapTupleHeader src,
							 TupleDesc tupdesc);
extern HeapTupleHeader slim_minimal_alloc(Size len, Size extra,
										  MinimalTuple *result);
extern MinimalTuple slim_expand_minimal_tuple(HeapTuple source,
											  TupleDesc tupdesc, Size extra);

#endif							/* SLIM_FORMAT_H */
