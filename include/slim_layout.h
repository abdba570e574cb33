/*-------------------------------------------------------------------------
 *
 * slim_layout.h
 *	  The leaf of the format layer: which attributes a row stores, heap's
 *	  layout of their values, and finding the next value among NULLs
 *	  (slim_layout.c).
 *
 * Every former (slim_form.c, slim_truncate.c, slim_tail.c) stands on these,
 * and nothing here calls anything of slimheap's: the inline code of the
 * headers above (slim_format.h, slim_tail.h) may call down into this
 * header, never the other way.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_layout.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_LAYOUT_H
#define SLIM_LAYOUT_H

#include "access/htup.h"
#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "port/pg_bitutils.h"

/*
 * The most attributes whose NULL bitmap (one byte) fits in the padding that
 * MAXALIGN leaves after heap's 23-byte header: such a row is as long in
 * heap's full form as truncated, and no prefix floor leaves it a tail (K
 * counts 8 free attributes, docs/row-floor.md).  A table of no more
 * attributes (dropped ones included) is narrow: it stores heap's full form
 * whatever its mode, and stores no mode until it needs one (docs/options.md).
 */
#define SLIM_NARROW_NATTS	8

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
extern int	slim_missing_floor_upto(TupleDesc tupdesc, int natts);
extern int	slim_stored_natts(TupleDesc tupdesc, const bool *isnull,
							  int missing_floor);
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
extern bool slim_header_has_null(HeapTupleHeader td, int natts);

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

#endif							/* SLIM_LAYOUT_H */
