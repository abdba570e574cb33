/*-------------------------------------------------------------------------
 *
 * slim_floor.c
 *	  Interned prefix floors, and the floor a stored row was formed with.
 *
 * A floor (slim_floor.h) is made once per distinct content and kept for
 * the backend's life in TopMemoryContext: the relation caches that hand
 * floors out are rebuilt at every invalidation, and slots keep the floor
 * a row was formed with across rows, so a floor must outlive both.  A
 * backend meets few distinct floors (one per table and index set).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/format/slim_floor.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "common/hashfn.h"
#include "nodes/pg_list.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "slim_floor.h"
#include "slim_tail.h"

/* the floors of one hash value */
typedef struct SlimFloorBucket
{
	uint32		hash;			/* the key */
	List	   *floors;
} SlimFloorBucket;

static HTAB *slim_floors = NULL;

/* need sorted descending, for qsort */
static int
slim_int16_desc(const void *a, const void *b)
{
	return (int) *(const int16 *) b - (int) *(const int16 *) a;
}

/*
 * The floor with this base and these Need attributes (any order, repeats
 * allowed; those at or below base are left out).
 */
const SlimFloor *
slim_floor_intern(int base, bool ends_null, const int16 *need, int nneed)
{
	int16	   *sorted = palloc((nneed + 1) * sizeof(int16));
	int			n = 0;
	int			i;
	uint32		hash;
	Size		size;
	SlimFloorBucket *bucket;
	SlimFloor  *floor;
	ListCell   *lc;
	bool		found;
	MemoryContext oldcxt;

	for (i = 0; i < nneed; i++)
	{
		if (need[i] > base)
			sorted[n++] = need[i];
	}
	qsort(sorted, n, sizeof(int16), slim_int16_desc);
	nneed = n;
	n = 0;
	for (i = 0; i < nneed; i++)
	{
		if (n == 0 || sorted[i] != sorted[n - 1])
			sorted[n++] = sorted[i];
	}

	size = offsetof(SlimFloor, need) + n * sizeof(int16);
	hash = hash_bytes((const unsigned char *) sorted, n * sizeof(int16)) ^
		hash_uint32((uint32) base * 2 + ends_null);

	if (slim_floors == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(uint32);
		ctl.entrysize = sizeof(SlimFloorBucket);
		ctl.hcxt = TopMemoryContext;
		slim_floors = hash_create("slimheap prefix floors", 64, &ctl,
								  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	bucket = hash_search(slim_floors, &hash, HASH_ENTER, &found);
	if (!found)
		bucket->floors = NIL;
	foreach(lc, bucket->floors)
	{
		floor = (SlimFloor *) lfirst(lc);
		if (floor->base == base && floor->ends_null == ends_null &&
			floor->nneed == n &&
			memcmp(floor->need, sorted, n * sizeof(int16)) == 0)
		{
			pfree(sorted);
			return floor;
		}
	}

	floor = MemoryContextAllocZero(TopMemoryContext, size);
	floor->base = base;
	floor->ends_null = ends_null;
	floor->nneed = n;
	memcpy(floor->need, sorted, n * sizeof(int16));
	oldcxt = MemoryContextSwitchTo(TopMemoryContext);
	bucket->floors = lappend(bucket->floors, floor);
	MemoryContextSwitchTo(oldcxt);
	pfree(sorted);
	return floor;
}

/*
 * The floor of the stored row td (its prefix and, if it has one, its
 * tail's map): the last Need attribute past base it holds a value in.
 */
int
slim_floor_stored(const SlimFloor *floor, HeapTupleHeader td,
				  TupleDesc tupdesc)
{
	int			natts = HeapTupleHeaderGetNatts(td);
	bool		hasnull = (td->t_infomask & HEAP_HASNULL) != 0;
	int16		positions[MaxTupleAttributeNumber];
	int			npos = 0;
	int			i;

	if (floor->nneed == 0)
		return floor->base;
	if (SlimHeaderHasTail(td))
		npos = slim_tail_positions(td, tupdesc, positions);
	for (i = 0; i < floor->nneed; i++)
	{
		int			att = floor->need[i];
		int			k;

		if (att <= natts)
		{
			if (!hasnull || !att_isnull(att - 1, td->t_bits))
				return att;
			continue;
		}
		for (k = 0; k < npos; k++)
		{
			if (positions[k] == att - 1)
				return att;
		}
	}
	return floor->base;
}
