/*-------------------------------------------------------------------------
 *
 * slim_routine.c
 *	  Which relations are slimheap's: the routine slimheap_am.c made.
 *
 * The code below the handler (index builds, the row mover) needs slimheap's
 * own routine, also while a build has lent the relation heap's
 * (slim_heap_borrow.c).  slimheap_am.c registers the routine here when it
 * makes it, so that nothing below it calls up into the handler.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_routine.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "utils/rel.h"

#include "slimheap.h"

static const TableAmRoutine *slim_own_routine = NULL;

void
slim_set_routine(const TableAmRoutine *routine)
{
	slim_own_routine = routine;
}

/* _PG_init() made it: the library is always preloaded or loaded by the handler */
const TableAmRoutine *
slim_get_routine(void)
{
	Assert(slim_own_routine != NULL);
	return slim_own_routine;
}

bool
slim_is_slimheap_relation(Relation rel)
{
	return slim_own_routine != NULL && rel->rd_tableam == slim_own_routine;
}
