/*-------------------------------------------------------------------------
 *
 * slim_heap_borrow.c
 *	  Lending heap's routine to a slimheap relation for the length of one of
 *	  heap's index-build scans.
 *
 * heap's index-build scans use heap_getnext(), which refuses any relation
 * whose rd_tableam is not heap's routine.  They run with the relation's
 * rd_tableam pointed at heap's routine; a relcache rebuild in the middle of
 * the build (a concurrent GRANT, the first lock on the TOAST table) would
 * set it back to ours, so a relcache callback points it at heap's again.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_heap_borrow.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "utils/inval.h"
#include "utils/rel.h"

#include "slimheap.h"

/*
 * Relations of this backend whose index build runs with heap's routine.
 * Builds nest only when an index expression builds another index, so a
 * handful is plenty.
 */
#define SLIM_MAX_BORROWS 8
static Relation borrowed[SLIM_MAX_BORROWS];
static int	nborrowed = 0;

/*
 * Runs after the relcache has processed an invalidation of relid (all
 * relations when InvalidOid), by which time a rebuilt entry has our routine
 * again.  The entry keeps its address across a rebuild.
 */
static void
slim_rebind_borrowed(Datum arg, Oid relid)
{
	int			i;

	for (i = 0; i < nborrowed; i++)
	{
		if (relid == InvalidOid || RelationGetRelid(borrowed[i]) == relid)
			borrowed[i]->rd_tableam = slim_heap_routine;
	}
}

/* point rel's rd_tableam at heap's routine; returns the routine it had */
const TableAmRoutine *
slim_borrow_heap_routine(Relation rel)
{
	const TableAmRoutine *own = rel->rd_tableam;

	if (nborrowed >= SLIM_MAX_BORROWS)
		elog(ERROR, "too many nested index builds on slimheap tables");
	borrowed[nborrowed++] = rel;
	rel->rd_tableam = slim_heap_routine;
	return own;
}

void
slim_return_heap_routine(Relation rel, const TableAmRoutine *own)
{
	Assert(nborrowed > 0 && borrowed[nborrowed - 1] == rel);
	nborrowed--;
	rel->rd_tableam = own;
}

/* once per backend, before the first borrow */
void
slim_heap_borrow_init(void)
{
	CacheRegisterRelcacheCallback(slim_rebind_borrowed, (Datum) 0);
}
