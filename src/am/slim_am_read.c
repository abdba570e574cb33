/*-------------------------------------------------------------------------
 *
 * slim_am_read.c
 *	  slimheap's read callbacks: heap's own, filling slimheap's slot lent
 *	  to heap as a buffer-heap slot.
 *
 * Rows are heap tuples, so heap reads them.  But heap stores what it reads
 * only into buffer-heap slots (ExecStoreBufferHeapTuple refuses any other),
 * so each callback lends heap the slot as one for the call (slim_slot_lend()
 * in slim_slot.h): two stores per call, no copy, the pin heap's store takes.
 * Slots of other types go to heap as they are; a row heap stores in a
 * buffer-heap slot (a narrow table's, slim_heap_slot.h) is then checked
 * to have every attribute.
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
#include "utils/snapmgr.h"

#include "slim_am.h"
#include "slim_compat.h"
#include "slim_heap_slot.h"
#include "slim_slot.h"
#include "slimheap.h"

/*
 * Each callback lends a slimheap slot to heap for the call, and takes it
 * back before returning heap's result; a slot of another type goes to heap
 * as it is, and the row heap stored in it, if it stored one (stored), is
 * checked after.  From 19 on, not a row a scan or index fetch returns
 * under SnapshotAny (SLIM_READS_STORED_FORM): core's search for a deleted
 * row (execReplication.c) reads with it, and then the row's buffer, which
 * a widened row no longer has, and its header; no other reader of such
 * rows copies them.  A slimheap slot read so lends its stored row
 * (slim_slot_read_under()).  Nor ANALYZE's sample, which stays in the
 * table's statistics and is read with the page locked.  The two per-row
 * callbacks (a scan's next row, an index fetch) dispatch on the slot's
 * type, each path in a function of its own.
 */
#define SLIM_LENT(slot, type, call, stored) \
	do { \
		type		result_; \
		\
		if (!TTS_IS_SLIMHEAP(slot)) \
		{ \
			result_ = (call); \
			if (stored) \
				slim_heap_slot_check_any(slot); \
			return result_; \
		} \
		slim_slot_lend_slow(slot); \
		result_ = (call); \
		slim_slot_take_back(slot); \
		return result_; \
	} while (0)

static bool
slim_scan_getnextslot_any(TableScanDesc scan, ScanDirection direction,
						  TupleTableSlot *slot)
{
	SLIM_LENT(slot, bool,
			  slim_heap_routine->scan_getnextslot(scan, direction, slot),
			  result_ && !SLIM_READS_STORED_FORM(scan->rs_snapshot));
}

static pg_noinline bool
slim_scan_getnextslot_slow(TableScanDesc scan, ScanDirection direction,
						   TupleTableSlot *slot)
{
	bool		found = slim_scan_getnextslot_any(scan, direction, slot);

	if (found && TTS_IS_SLIMHEAP(slot))
		slim_slot_read_under(slot, scan->rs_snapshot);
	return found;
}

/* heap's own slot (a narrow table's): heap's read, then the check */
static pg_noinline bool
slim_scan_getnextslot_heap(TableScanDesc scan, ScanDirection direction,
						   TupleTableSlot *slot)
{
	if (unlikely(SLIM_READS_STORED_FORM(scan->rs_snapshot)))
		return slim_heap_routine->scan_getnextslot(scan, direction, slot);
	if (!slim_heap_routine->scan_getnextslot(scan, direction, slot))
		return false;
	return slim_heap_slot_checked(slot);
}

/* a lendable slimheap slot (slim_slot_lendable()), lent for heap's call */
static pg_noinline bool
slim_scan_getnextslot_lent(TableScanDesc scan, ScanDirection direction,
						   TupleTableSlot *slot)
{
	bool		found;

	slim_slot_lend(slot);
	found = slim_heap_routine->scan_getnextslot(scan, direction, slot);
	slim_slot_take_back(slot);
	if (found)
		slim_slot_read_under(slot, scan->rs_snapshot);
	return found;
}

/*
 * heap's scan, marked SLIM_SO_FULL_ROWS when the record of the table's file
 * says that it holds no short row (slim_full_files.c).  Looked up first: a
 * failed lookup leaves no scan open.
 */
TableScanDesc
slim_scan_begin(Relation rel, Snapshot snapshot, int nkeys,
				struct ScanKeyData *key, ParallelTableScanDesc pscan,
				uint32 flags)
{
	/* only MVCC scans ask: slimheap's own scans read rows as stored */
	bool		full_rows = snapshot != NULL && IsMVCCSnapshot(snapshot) &&
		slim_full_files_hold(rel);
	TableScanDesc scan;

	scan = slim_heap_routine->scan_begin(rel, snapshot, nkeys, key, pscan,
										 flags);
	if (full_rows)
		scan->rs_flags |= SLIM_SO_FULL_ROWS;
	return scan;
}

/*
 * Only the slot's type here, and for heap's slot the scan's mark: each path
 * is a function of its own, which keeps only the slot across heap's call,
 * so that neither pays for the other's registers
 * (bench/results/instructions-profile.md), and a file of full rows goes to
 * heap with no check (a tail call).
 */
bool
slim_scan_getnextslot(TableScanDesc scan, ScanDirection direction,
					  TupleTableSlot *slot)
{
	if (slot->tts_ops == &TTSOpsBufferHeapTuple)
	{
		if (scan->rs_flags & SLIM_SO_FULL_ROWS)
			return heap_getnextslot(scan, direction, slot);
		return slim_scan_getnextslot_heap(scan, direction, slot);
	}
	if (unlikely(!slim_slot_lendable(slot)))
		return slim_scan_getnextslot_slow(scan, direction, slot);
	return slim_scan_getnextslot_lent(scan, direction, slot);
}

bool
slim_scan_getnextslot_tidrange(TableScanDesc scan, ScanDirection direction,
							   TupleTableSlot *slot)
{
	SLIM_LENT(slot, bool,
			  slim_heap_routine->scan_getnextslot_tidrange(scan, direction,
														   slot),
			  result_);
}

static bool
slim_index_fetch_tuple_any(struct IndexFetchTableData *scan, ItemPointer tid,
						   Snapshot snapshot, TupleTableSlot *slot,
						   bool *call_again, bool *all_dead)
{
	SLIM_LENT(slot, bool,
			  slim_heap_routine->index_fetch_tuple(scan, tid, snapshot, slot,
												   call_again, all_dead),
			  result_ && !SLIM_READS_STORED_FORM(snapshot));
}

static pg_noinline bool
slim_index_fetch_tuple_slow(struct IndexFetchTableData *scan, ItemPointer tid,
							Snapshot snapshot, TupleTableSlot *slot,
							bool *call_again, bool *all_dead)
{
	bool		found = slim_index_fetch_tuple_any(scan, tid, snapshot, slot,
												   call_again, all_dead);

	if (found && TTS_IS_SLIMHEAP(slot))
		slim_slot_read_under(slot, snapshot);
	return found;
}

/* heap's own slot (a narrow table's): heap's fetch, then the check */
static pg_noinline bool
slim_index_fetch_tuple_heap(struct IndexFetchTableData *scan, ItemPointer tid,
							Snapshot snapshot, TupleTableSlot *slot,
							bool *call_again, bool *all_dead)
{
	if (unlikely(SLIM_READS_STORED_FORM(snapshot)))
		return slim_heap_routine->index_fetch_tuple(scan, tid, snapshot, slot,
													call_again, all_dead);
	if (!slim_heap_routine->index_fetch_tuple(scan, tid, snapshot, slot,
											  call_again, all_dead))
		return false;
	return slim_heap_slot_checked(slot);
}

/* a lendable slimheap slot, lent for heap's call */
static pg_noinline bool
slim_index_fetch_tuple_lent(struct IndexFetchTableData *scan, ItemPointer tid,
							Snapshot snapshot, TupleTableSlot *slot,
							bool *call_again, bool *all_dead)
{
	bool		found;

	slim_slot_lend(slot);
	found = slim_heap_routine->index_fetch_tuple(scan, tid, snapshot, slot,
												 call_again, all_dead);
	slim_slot_take_back(slot);
	if (found)
		slim_slot_read_under(slot, snapshot);
	return found;
}

/* as slim_scan_getnextslot(): only the slot's type here */
bool
slim_index_fetch_tuple(struct IndexFetchTableData *scan, ItemPointer tid,
					   Snapshot snapshot, TupleTableSlot *slot,
					   bool *call_again, bool *all_dead)
{
	if (slot->tts_ops == &TTSOpsBufferHeapTuple)
		return slim_index_fetch_tuple_heap(scan, tid, snapshot, slot,
										   call_again, all_dead);
	if (unlikely(!slim_slot_lendable(slot)))
		return slim_index_fetch_tuple_slow(scan, tid, snapshot, slot,
										   call_again, all_dead);
	return slim_index_fetch_tuple_lent(scan, tid, snapshot, slot,
									   call_again, all_dead);
}

bool
slim_tuple_fetch_row_version(Relation rel, ItemPointer tid,
							 Snapshot snapshot, TupleTableSlot *slot)
{
	SLIM_LENT(slot, bool,
			  slim_heap_routine->tuple_fetch_row_version(rel, tid, snapshot,
														 slot),
			  result_);
}

/*
 * heap reads the tuple and buffer the slot holds (or the tuple it owns)
 * where a buffer-heap slot keeps them, and stores nothing: what the slot
 * keeps besides stays, but the slot is lent all the same (heap checks its
 * type)
 */
bool
slim_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
							  Snapshot snapshot)
{
	bool		result;
	bool		lend_stored;

	if (!TTS_IS_SLIMHEAP(slot))
		return slim_heap_slot_satisfies(rel, slot, snapshot);
	/* on 19 lending forgets a SnapshotAny read's lend_stored: keep it */
	lend_stored = ((SlimTupleTableSlot *) slot)->lend_stored;
	slim_slot_lend(slot);
	result = slim_heap_routine->tuple_satisfies_snapshot(rel, slot, snapshot);
	slim_slot_take_back(slot);
	((SlimTupleTableSlot *) slot)->lend_stored = lend_stored;
	return result;
}

TM_Result
slim_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
				TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
				LockWaitPolicy wait_policy, uint8 flags,
				TM_FailureData *tmfd)
{
	SLIM_LENT(slot, TM_Result,
			  slim_heap_routine->tuple_lock(rel, tid, snapshot, slot, cid, mode,
											wait_policy, flags, tmfd),
			  result_ == TM_Ok);
}

bool
slim_scan_analyze_next_tuple(TableScanDesc scan, SLIM_ANALYZE_XMIN_PARAM
							 double *liverows, double *deadrows,
							 TupleTableSlot *slot)
{
	SLIM_LENT(slot, bool,
			  slim_heap_routine->scan_analyze_next_tuple(scan, SLIM_ANALYZE_XMIN_ARG
														 liverows, deadrows,
														 slot),
			  false);
}

#if PG_VERSION_NUM >= 180000
bool
slim_scan_bitmap_next_tuple(TableScanDesc scan, TupleTableSlot *slot,
							bool *recheck, uint64 *lossy_pages,
							uint64 *exact_pages)
{
	SLIM_LENT(slot, bool,
			  slim_heap_routine->scan_bitmap_next_tuple(scan, slot, recheck,
														lossy_pages,
														exact_pages),
			  result_);
}
#else
bool
slim_scan_bitmap_next_tuple(TableScanDesc scan, struct TBMIterateResult *tbmres,
							TupleTableSlot *slot)
{
	SLIM_LENT(slot, bool,
			  slim_heap_routine->scan_bitmap_next_tuple(scan, tbmres, slot),
			  result_);
}
#endif

bool
slim_scan_sample_next_tuple(TableScanDesc scan,
							struct SampleScanState *scanstate,
							TupleTableSlot *slot)
{
	SLIM_LENT(slot, bool,
			  slim_heap_routine->scan_sample_next_tuple(scan, scanstate,
														slot),
			  result_);
}
