/*-------------------------------------------------------------------------
 *
 * slim_am_read.c
 *	  slimheap's read callbacks: heap's own, filling slimheap's slot through
 *	  its reader, and heap's index-build scans.
 *
 * Rows are heap tuples, so heap reads them.  But heap stores what it reads
 * only into buffer-heap slots (ExecStoreBufferHeapTuple refuses any other),
 * so each callback that fills a slot hands heap the slot's reader and then
 * shows the reader's tuple in the slot (slim_slot.c): a few stores per row,
 * no copy, no extra buffer pin.  Slots of other types go to heap as they are.
 *
 * heap's index-build scans use heap_getnext(), which refuses any relation
 * whose rd_tableam is not heap's routine.  They run with the relation's
 * rd_tableam pointed at heap's routine; a relcache rebuild in the middle of
 * the build (a concurrent GRANT, the first lock on the TOAST table) would
 * set it back to ours, so a relcache callback points it at heap's again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "executor/tuptable.h"
#include "utils/inval.h"

#include "slim_slot.h"
#include "slimheap.h"

static const TableAmRoutine *heap_routine;

static bool
slim_scan_getnextslot(TableScanDesc scan, ScanDirection direction,
					  TupleTableSlot *slot)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	bool		found = heap_routine->scan_getnextslot(scan, direction, reader);

	slim_slot_sync(slot, reader);
	return found;
}

static bool
slim_scan_getnextslot_tidrange(TableScanDesc scan, ScanDirection direction,
							   TupleTableSlot *slot)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	bool		found;

	found = heap_routine->scan_getnextslot_tidrange(scan, direction, reader);
	slim_slot_sync(slot, reader);
	return found;
}

static bool
slim_index_fetch_tuple(struct IndexFetchTableData *scan, ItemPointer tid,
					   Snapshot snapshot, TupleTableSlot *slot,
					   bool *call_again, bool *all_dead)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	bool		found;

	found = heap_routine->index_fetch_tuple(scan, tid, snapshot, reader,
											call_again, all_dead);
	slim_slot_sync(slot, reader);
	return found;
}

static bool
slim_tuple_fetch_row_version(Relation rel, ItemPointer tid,
							 Snapshot snapshot, TupleTableSlot *slot)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	bool		found;

	found = heap_routine->tuple_fetch_row_version(rel, tid, snapshot, reader);
	slim_slot_sync(slot, reader);
	return found;
}

/* heap reads the tuple and buffer of the slot it is given: the reader's */
static bool
slim_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
							  Snapshot snapshot)
{
	return heap_routine->tuple_satisfies_snapshot(rel, slim_slot_reader(slot),
												  snapshot);
}

static TM_Result
slim_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
				TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
				LockWaitPolicy wait_policy, uint8 flags,
				TM_FailureData *tmfd)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	TM_Result	result;

	result = heap_routine->tuple_lock(rel, tid, snapshot, reader, cid, mode,
									  wait_policy, flags, tmfd);
	slim_slot_sync(slot, reader);
	return result;
}

static bool
slim_scan_analyze_next_tuple(TableScanDesc scan, TransactionId OldestXmin,
							 double *liverows, double *deadrows,
							 TupleTableSlot *slot)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	bool		found;

	found = heap_routine->scan_analyze_next_tuple(scan, OldestXmin, liverows,
												  deadrows, reader);
	slim_slot_sync(slot, reader);
	return found;
}

#if PG_VERSION_NUM >= 180000
static bool
slim_scan_bitmap_next_tuple(TableScanDesc scan, TupleTableSlot *slot,
							bool *recheck, uint64 *lossy_pages,
							uint64 *exact_pages)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	bool		found;

	found = heap_routine->scan_bitmap_next_tuple(scan, reader, recheck,
												 lossy_pages, exact_pages);
	slim_slot_sync(slot, reader);
	return found;
}
#else
static bool
slim_scan_bitmap_next_tuple(TableScanDesc scan, struct TBMIterateResult *tbmres,
							TupleTableSlot *slot)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	bool		found;

	found = heap_routine->scan_bitmap_next_tuple(scan, tbmres, reader);
	slim_slot_sync(slot, reader);
	return found;
}
#endif

static bool
slim_scan_sample_next_tuple(TableScanDesc scan,
							struct SampleScanState *scanstate,
							TupleTableSlot *slot)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	bool		found;

	found = heap_routine->scan_sample_next_tuple(scan, scanstate, reader);
	slim_slot_sync(slot, reader);
	return found;
}

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
			borrowed[i]->rd_tableam = heap_routine;
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
	rel->rd_tableam = heap_routine;
	return own;
}

void
slim_return_heap_routine(Relation rel, const TableAmRoutine *own)
{
	Assert(nborrowed > 0 && borrowed[nborrowed - 1] == rel);
	nborrowed--;
	rel->rd_tableam = own;
}

/* heap's scan, seeing rows as they are (slim_index_build.c) */
static double
slim_index_build_range_scan(Relation table_rel, Relation index_rel,
							struct IndexInfo *index_info, bool allow_sync,
							bool anyvisible, bool progress,
							BlockNumber start_blockno, BlockNumber numblocks,
							IndexBuildCallback callback, void *callback_state,
							TableScanDesc scan)
{
	return slim_index_build_scan(heap_routine, table_rel, index_rel,
								 index_info, allow_sync, anyvisible, progress,
								 start_blockno, numblocks, callback,
								 callback_state, scan);
}

static void
slim_index_validate_scan(Relation table_rel, Relation index_rel,
						 struct IndexInfo *index_info, Snapshot snapshot,
						 struct ValidateIndexState *state)
{
	const TableAmRoutine *own = slim_borrow_heap_routine(table_rel);

	PG_TRY();
	{
		heap_routine->index_validate_scan(table_rel, index_rel, index_info,
										  snapshot, state);
	}
	PG_FINALLY();
	{
		slim_return_heap_routine(table_rel, own);
	}
	PG_END_TRY();
}

void
slim_init_read_routine(TableAmRoutine *routine)
{
	static bool callback_registered = false;

	heap_routine = GetHeapamTableAmRoutine();

	routine->scan_getnextslot = slim_scan_getnextslot;
	routine->scan_getnextslot_tidrange = slim_scan_getnextslot_tidrange;
	routine->index_fetch_tuple = slim_index_fetch_tuple;
	routine->tuple_fetch_row_version = slim_tuple_fetch_row_version;
	routine->tuple_satisfies_snapshot = slim_tuple_satisfies_snapshot;
	routine->tuple_lock = slim_tuple_lock;
	routine->scan_analyze_next_tuple = slim_scan_analyze_next_tuple;
	routine->scan_bitmap_next_tuple = slim_scan_bitmap_next_tuple;
	routine->scan_sample_next_tuple = slim_scan_sample_next_tuple;
	routine->index_build_range_scan = slim_index_build_range_scan;
	routine->index_validate_scan = slim_index_validate_scan;

	if (!callback_registered)
	{
		CacheRegisterRelcacheCallback(slim_rebind_borrowed, (Datum) 0);
		callback_registered = true;
	}
}
