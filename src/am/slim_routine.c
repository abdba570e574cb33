/*-------------------------------------------------------------------------
 *
 * slim_routine.c
 *	  heap's routine, and which relations are slimheap's: the routine
 *	  slimheap_am.c made.
 *
 * Every file reaches heap's callbacks through slim_heap_routine, set here
 * before slimheap_am.c makes its routine from it.  The code below the
 * handler (index builds, the row mover) needs slimheap's own routine,
 * also while a build has lent the relation heap's (slim_heap_borrow.c):
 * slimheap_am.c registers it here, so that nothing below the handler
 * calls up into it.
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

const TableAmRoutine *slim_heap_routine = NULL;
static const TableAmRoutine *slim_own_routine = NULL;

/* routine: slimheap's, which the caller fills in after this returns */
void
slim_routine_init(const TableAmRoutine *routine)
{
	slim_heap_routine = GetHeapamTableAmRoutine();
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
