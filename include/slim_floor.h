/*-------------------------------------------------------------------------
 *
 * slim_floor.h
 *	  The prefix floor of compress rows, per row (slim_floor.c).
 *
 * Rule R of docs/row-floor.md: a compress row keeps in its standard
 * prefix its first `base` attributes (the free ones, the fast defaults,
 * slimheap.prefix_columns) and, past them, every attribute an index or
 * the replica identity reads ("Need") in which it holds a value: heap's
 * own readers of stored rows then read each Need column as the row's
 * value (a NULL left to the tail reads NULL, which it is).  A row with no
 * value in a Need column past `base` may start its tail at `base`.
 *
 * Floors are interned for the backend's life: two equal floors are one
 * pointer, so whoever caches a row formed with a floor compares pointers.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_floor.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_FLOOR_H
#define SLIM_FLOOR_H

#include "access/htup.h"
#include "access/tupdesc.h"

typedef struct SlimFloor
{
	int			base;			/* attributes every row keeps in its prefix */
	bool		ends_null;		/* a tail may end with stored NULLs */
	int			nneed;			/* Need attributes past base */
	int16		need[FLEXIBLE_ARRAY_MEMBER];	/* their numbers, descending */
} SlimFloor;

/* slim_floor.c */
extern const SlimFloor *slim_floor_intern(int base, bool ends_null,
										  const int16 *need, int nneed);
extern int	slim_floor_stored(const SlimFloor *floor, HeapTupleHeader td,
							  TupleDesc tupdesc);

/*
 * The prefix floor of a row with these NULL flags that stores at least
 * missing_floor attributes (T1): the last Need attribute past base that
 * holds a value, else base; and missing_floor where a tail may not end
 * with stored NULLs (ends_null false: an extension catalog older than 1.4,
 * whose library would misread them, docs/fast-defaults.md).
 */
static inline int
slim_floor_row(const SlimFloor *floor, const bool *isnull, int missing_floor)
{
	int			row_floor = floor->base;
	int			i;

	for (i = 0; i < floor->nneed; i++)
	{
		if (!isnull[floor->need[i] - 1])
		{
			row_floor = floor->need[i];
			break;
		}
	}
	if (!floor->ends_null && missing_floor > row_floor)
		return missing_floor;
	return row_floor;
}

#endif							/* SLIM_FLOOR_H */
