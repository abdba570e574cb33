/*-------------------------------------------------------------------------
 *
 * slimheap_am.c
 *	  The slimheap table access method: heap's routine with slimheap's
 *	  slot type and tuple forming.
 *
 * Rows are standard heap tuples, so visibility, WAL, HOT, pruning, VACUUM
 * and TOAST stay heap's own.  Replaced: the slot type (slim_slot.c), the
 * callbacks that fill slots (slim_am_read.c, heap's code on the slot lent
 * as a buffer-heap slot), the callbacks that write rows (slim_am_write.c),
 * the index build's scans (slim_index_build.c), and the rewrite of CLUSTER /
 * VACUUM FULL (slim_cluster.c).  slim_init_routine() below assigns them
 * all.
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

#include "slim_am.h"
#include "slim_wal.h"
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

/*
 * The routine, every callback in this one place.  heap's callbacks are
 * static in heapam_handler.c and reachable only at run time, through
 * GetHeapamTableAmRoutine(), so the routine starts as a copy of heap's
 * (slim_routine_init() keeps heap's for every file) and the callbacks
 * slimheap implements are assigned over it.  Everything not named below
 * is heap's own: the scans' set-up and ends, parallel scans, index fetch
 * set-up, TID checks, the latest TID, index deletes, finishing a bulk
 * insert, speculative completion, the relation's files (new, nontransactional
 * truncate, copy data), VACUUM, ANALYZE's block scan, sizes and estimates,
 * TOAST access, the block-level bitmap and sample scans.
 */
static void
slim_init_routine(void)
{
	if (slim_routine_ready)
		return;

	slim_routine_init(&slim_routine);
	slim_routine = *slim_heap_routine;

	/* the slot: slimheap's type, forming rows in the table's mode */
	slim_routine.slot_callbacks = slim_slot_callbacks;

	/* reads: heap's, on the slot lent to heap (slim_am_read.c) */
	slim_routine.scan_begin = slim_scan_begin;
	slim_routine.scan_getnextslot = slim_scan_getnextslot;
	slim_routine.scan_getnextslot_tidrange = slim_scan_getnextslot_tidrange;
	slim_routine.index_fetch_tuple = slim_index_fetch_tuple;
	slim_routine.tuple_fetch_row_version = slim_tuple_fetch_row_version;
	slim_routine.tuple_satisfies_snapshot = slim_tuple_satisfies_snapshot;
	slim_routine.tuple_lock = slim_tuple_lock;
	slim_routine.scan_analyze_next_tuple = slim_scan_analyze_next_tuple;
	slim_routine.scan_bitmap_next_tuple = slim_scan_bitmap_next_tuple;
	slim_routine.scan_sample_next_tuple = slim_scan_sample_next_tuple;

	/* writes: rows formed in the mode, then heap's (slim_am_write.c) */
	slim_routine.tuple_insert = slim_tuple_insert;
	slim_routine.tuple_insert_speculative = slim_tuple_insert_speculative;
	slim_routine.multi_insert = slim_multi_insert;
	slim_routine.tuple_update = slim_tuple_update;
	slim_routine.tuple_delete = slim_tuple_delete;

	/* index builds over rows with tails (slim_index_build.c) */
	slim_routine.index_build_range_scan = slim_index_build_range_scan;
	slim_routine.index_validate_scan = slim_index_validate_scan;

	/* VACUUM re-lays changed pages' rows after heap's (slim_vacuum.c) */
	slim_routine.relation_vacuum = slim_relation_vacuum;

	/* CLUSTER and VACUUM FULL (slim_cluster.c); TOAST (slim_toast_am.c) */
	slim_routine.relation_copy_for_cluster = slim_relation_copy_for_cluster;
	slim_routine.relation_toast_am = slim_relation_toast_am;

	/* new files and their record of full rows (slim_full_files.c) */
	slim_routine.slim_routine_set_new_file = slim_relation_set_new_file;
	slim_routine.relation_copy_data = slim_relation_copy_data;

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
	slim_floor_registry_init();
	slim_full_files_init();
	slim_progress_init();
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
