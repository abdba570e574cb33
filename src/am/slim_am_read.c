/*-------------------------------------------------------------------------
 *
 * slim_am_read.c
 *	  slimheap's read callbacks: heap's own, filling slimheap's slot through
 *	  its reader.
 *
 * Rows are heap tuples, so heap reads them.  But heap stores what it reads
 * only into buffer-heap slots (ExecStoreBufferHeapTuple refuses any other),
 * so each callback that fills a slot hands heap the slot's reader and then
 * shows the reader's tuple in the slot (slim_slot.c): a few stores per row,
 * no copy, no extra buffer pin.  Slots of other types go to heap as they are.
 *
 * The index-build scans are slim_index_build.c's.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_am_read.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "executor/tuptable.h"

#include "slim_am.h"
#include "slim_compat.h"
#include "slim_slot.h"
#include "slimheap.h"

bool
slim_scan_getnextslot(TableScanDesc scan, ScanDirection direction,
					  TupleTableSlot *slot)
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;

	if (!TTS_IS_SLIMHEAP(slot))
		return slim_heap_routine->scan_getnextslot(scan, direction, slot);
	return slim_slot_synced(sslot,
							slim_heap_routine->scan_getnextslot(scan, direction,
														   SLIM_READER(sslot)));
}

bool
slim_scan_getnextslot_tidrange(TableScanDesc scan, ScanDirection direction,
							   TupleTableSlot *slot)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	bool		found;

	found = slim_heap_routine->scan_getnextslot_tidrange(scan, direction, reader);
	slim_slot_sync(slot, reader);
	return found;
}

bool
slim_index_fetch_tuple(struct IndexFetchTableData *scan, ItemPointer tid,
					   Snapshot snapshot, TupleTableSlot *slot,
					   bool *call_again, bool *all_dead)
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;

	if (!TTS_IS_SLIMHEAP(slot))
		return slim_heap_routine->index_fetch_tuple(scan, tid, snapshot, slot,
											   call_again, all_dead);
	return slim_slot_synced(sslot,
							slim_heap_routine->index_fetch_tuple(scan, tid, snapshot,
															SLIM_READER(sslot),
															call_again,
															all_dead));
}

bool
slim_tuple_fetch_row_version(Relation rel, ItemPointer tid,
							 Snapshot snapshot, TupleTableSlot *slot)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	bool		found;

	found = slim_heap_routine->tuple_fetch_row_version(rel, tid, snapshot, reader);
	slim_slot_sync(slot, reader);
	return found;
}

/* heap reads the tuple and buffer of the slot it is given: the reader's */
bool
slim_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
							  Snapshot snapshot)
{
	return slim_heap_routine->tuple_satisfies_snapshot(rel, slim_slot_reader(slot),
												  snapshot);
}

TM_Result
slim_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
				TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
				LockWaitPolicy wait_policy, uint8 flags,
				TM_FailureData *tmfd)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	TM_Result	result;

	result = slim_heap_routine->tuple_lock(rel, tid, snapshot, reader, cid, mode,
									  wait_policy, flags, tmfd);
	slim_slot_sync(slot, reader);
	return result;
}

bool
slim_scan_analyze_next_tuple(TableScanDesc scan, SLIM_ANALYZE_XMIN_PARAM
							 double *liverows, double *deadrows,
							 TupleTableSlot *slot)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	bool		found;

	found = slim_heap_routine->scan_analyze_next_tuple(scan, SLIM_ANALYZE_XMIN_ARG
												  liverows, deadrows, reader);
	slim_slot_sync(slot, reader);
	return found;
}

#if PG_VERSION_NUM >= 180000
bool
slim_scan_bitmap_next_tuple(TableScanDesc scan, TupleTableSlot *slot,
							bool *recheck, uint64 *lossy_pages,
							uint64 *exact_pages)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	bool		found;

	found = slim_heap_routine->scan_bitmap_next_tuple(scan, reader, recheck,
												 lossy_pages, exact_pages);
	slim_slot_sync(slot, reader);
	return found;
}
#else
bool
slim_scan_bitmap_next_tuple(TableScanDesc scan, struct TBMIterateResult *tbmres,
							TupleTableSlot *slot)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	bool		found;

	found = slim_heap_routine->scan_bitmap_next_tuple(scan, tbmres, reader);
	slim_slot_sync(slot, reader);
	return found;
}
#endif

bool
slim_scan_sample_next_tuple(TableScanDesc scan,
							struct SampleScanState *scanstate,
							TupleTableSlot *slot)
{
	TupleTableSlot *reader = slim_slot_reader(slot);
	bool		found;

	found = slim_heap_routine->scan_sample_next_tuple(scan, scanstate, reader);
	slim_slot_sync(slot, reader);
	return found;
}
