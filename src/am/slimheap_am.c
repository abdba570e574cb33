/*-------------------------------------------------------------------------
 *
 * slimheap_am.c
 *	  The slimheap table access method: heap's routine with slimheap's
 *	  slot type and tuple forming.
 *
 * Rows are standard heap tuples, so visibility, WAL, HOT, pruning, VACUUM
 * and TOAST stay heap's own.  Replaced: the slot type (slim_slot.c), the
 * callbacks that fill slots (slim_am_read.c, heap's code through the slot's
 * reader), the callbacks that write rows (slim_am_write.c), and the rewrite
 * of CLUSTER / VACUUM FULL (slim_cluster.c).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slimheap_am.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "utils/guc.h"

#include "slim_relayout.h"
#include "slimheap.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(slimheap_tableam_handler);

void		_PG_init(void);

static TableAmRoutine slim_routine;
static bool slim_routine_ready = false;

/* the slot of a relation forms rows in the relation's current mode */
static const TupleTableSlotOps *
slim_slot_callbacks(Relation rel)
{
	return slim_slot_ops(rel, slim_get_relinfo(rel));
}

static void
slim_init_routine(void)
{
	if (slim_routine_ready)
		return;

	slim_routine = *GetHeapamTableAmRoutine();
	slim_routine.slot_callbacks = slim_slot_callbacks;
	slim_init_read_routine(&slim_routine);
	slim_init_write_routine(&slim_routine);
	slim_init_index_routine(&slim_routine);
	slim_routine.relation_copy_for_cluster = slim_relation_copy_for_cluster;
	slim_routine.relation_toast_am = slim_relation_toast_am;
	slim_set_routine(&slim_routine);
	slim_routine_ready = true;
}

Datum
slimheap_tableam_handler(PG_FUNCTION_ARGS)
{
	slim_init_routine();
	PG_RETURN_POINTER(&slim_routine);
}

/* SHOW slimheap.rows_formed: how many rows this backend formed to store */
static const char *
slim_show_rows_formed(void)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), UINT64_FORMAT, slim_rows_formed);
	return buf;
}

void
_PG_init(void)
{
	static char *rows_formed_dummy = NULL;

	slim_init_routine();
	slim_options_init(&slim_routine);
	slim_index_build_init();
	slim_wal_init();
	/* tails of rows inserted under logical decoding need slimheap's WAL */
	slim_options_tails_decoded = slim_wal_registered();

	DefineCustomStringVariable("slimheap.rows_formed",
							   "Rows this backend has formed to store (a diagnostic counter).",
							   "Counts each row formed or re-formed by slimheap's slots and write paths; tests read it to show that a row is formed once.",
							   &rows_formed_dummy,
							   "",
							   PGC_INTERNAL,
							   GUC_NOT_IN_SAMPLE | GUC_DISALLOW_IN_FILE,
							   NULL, NULL, slim_show_rows_formed);
}
