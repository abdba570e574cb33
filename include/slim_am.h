/*-------------------------------------------------------------------------
 *
 * slim_am.h
 *	  The callbacks of slimheap's table AM routine, by the file that
 *	  implements them.  slimheap_am.c assigns every one of them, and heap's
 *	  for the rest, in one place (slim_init_routine()).
 *
 * Hidden: they are the library's own, called through the routine only, so
 * the files that call one another (slim_multi_insert() its own file's
 * slim_tuple_insert()) call them directly, as they did while they were
 * static, not through the PLT of a symbol another library could replace
 * (15 builds modules without -fvisibility=hidden).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_am.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_AM_H
#define SLIM_AM_H

#include "access/tableam.h"
#include "executor/tuptable.h"
#include "utils/rel.h"

#include "slim_compat.h"

/*
 * slim_am_read.c: heap's reads, filling slimheap's slot lent to heap.  A
 * scan of a file whose record says it holds no short row carries
 * SLIM_SO_FULL_ROWS in rs_flags, a bit no SO_* flag uses (0-9 on 15 and
 * 18, 0-10 on 17, 0-11 on 19).
 */
#define SLIM_SO_FULL_ROWS	(1u << 31)
extern SLIM_HIDDEN TableScanDesc slim_scan_begin(Relation rel, Snapshot snapshot,
												 int nkeys, struct ScanKeyData *key,
												 ParallelTableScanDesc pscan,
												 uint32 flags);
extern SLIM_HIDDEN bool slim_scan_getnextslot(TableScanDesc scan, ScanDirection direction,
											  TupleTableSlot *slot);
extern SLIM_HIDDEN bool slim_scan_getnextslot_tidrange(TableScanDesc scan,
													   ScanDirection direction,
													   TupleTableSlot *slot);
extern SLIM_HIDDEN bool slim_index_fetch_tuple(struct IndexFetchTableData *scan,
											   ItemPointer tid, Snapshot snapshot,
											   TupleTableSlot *slot, bool *call_again,
											   bool *all_dead);
extern SLIM_HIDDEN bool slim_tuple_fetch_row_version(Relation rel, ItemPointer tid,
													 Snapshot snapshot,
													 TupleTableSlot *slot);
extern SLIM_HIDDEN bool slim_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
													  Snapshot snapshot);
extern SLIM_HIDDEN TM_Result slim_tuple_lock(Relation rel, ItemPointer tid,
											 Snapshot snapshot, TupleTableSlot *slot,
											 CommandId cid, LockTupleMode mode,
											 LockWaitPolicy wait_policy, uint8 flags,
											 TM_FailureData *tmfd);
extern SLIM_HIDDEN bool slim_scan_analyze_next_tuple(TableScanDesc scan,
													 SLIM_ANALYZE_XMIN_PARAM
													 double *liverows, double *deadrows,
													 TupleTableSlot *slot);
extern SLIM_HIDDEN bool slim_scan_bitmap_next_tuple(SLIM_BITMAP_NEXT_TUPLE_PARAMS);
extern SLIM_HIDDEN bool slim_scan_sample_next_tuple(TableScanDesc scan,
													struct SampleScanState *scanstate,
													TupleTableSlot *slot);

/* slim_am_write.c: rows formed in the table's mode, then heap's writes */
extern SLIM_HIDDEN void slim_tuple_insert(Relation rel, TupleTableSlot *slot,
										  CommandId cid, SlimInsertOptions options,
										  BulkInsertState bistate);
extern SLIM_HIDDEN void slim_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
													  CommandId cid,
													  SlimInsertOptions options,
													  BulkInsertState bistate,
													  uint32 specToken);
extern SLIM_HIDDEN void slim_multi_insert(Relation rel, TupleTableSlot **slots,
										  int ntuples, CommandId cid,
										  SlimInsertOptions options,
										  BulkInsertState bistate);
extern SLIM_HIDDEN TM_Result slim_tuple_update(Relation rel, ItemPointer otid,
											   TupleTableSlot *slot, CommandId cid,
											   SLIM_UPDATE_OPTIONS_PARAM
											   Snapshot snapshot, Snapshot crosscheck,
											   bool wait, TM_FailureData *tmfd,
											   LockTupleMode *lockmode,
											   SlimUpdateIndexes *update_indexes);
extern SLIM_HIDDEN TM_Result slim_tuple_delete(Relation rel, ItemPointer tid,
											   CommandId cid,
											   SLIM_DELETE_OPTIONS_PARAM
											   Snapshot snapshot, Snapshot crosscheck,
											   bool wait,
											   TM_FailureData *tmfd SLIM_DELETE_PART_PARAM);

/* slim_index_build.c: heap's build and validation scans, rows checked */
extern SLIM_HIDDEN double slim_index_build_range_scan(Relation table_rel,
													  Relation index_rel,
													  struct IndexInfo *index_info,
													  bool allow_sync, bool anyvisible,
													  bool progress,
													  BlockNumber start_blockno,
													  BlockNumber numblocks,
													  IndexBuildCallback callback,
													  void *callback_state,
													  TableScanDesc scan);
extern SLIM_HIDDEN void slim_index_validate_scan(Relation table_rel, Relation index_rel,
												 struct IndexInfo *index_info,
												 Snapshot snapshot,
												 struct ValidateIndexState *state);

/* slim_vacuum.c: VACUUM gives changed pages' rows their form back */
extern SLIM_HIDDEN void slim_relation_vacuum(Relation rel,
											 SLIM_VACUUM_PARAMS params,
											 BufferAccessStrategy bstrategy);

/* slim_cluster.c: CLUSTER and VACUUM FULL form every row again */
extern SLIM_HIDDEN void slim_relation_copy_for_cluster(Relation OldHeap, Relation NewHeap,
													   Relation OldIndex, bool use_sort,
													   TransactionId OldestXmin,
													   SLIM_COPY_FOR_CLUSTER_SNAPSHOT_PARAM
													   TransactionId *xid_cutoff,
													   MultiXactId *multi_cutoff,
													   double *num_tuples,
													   double *tups_vacuumed,
													   double *tups_recently_dead);

/* slim_toast_am.c: TOAST tables of heap's access method */
extern SLIM_HIDDEN Oid	slim_relation_toast_am(Relation rel);
extern Oid	slim_toast_of(Oid relid, Oid *toast_am);

/* slim_full_files.c: new files, and the record that their rows are full */
extern SLIM_HIDDEN void slim_relation_set_new_file(Relation rel,
												   const SlimFileLocator *newloc,
												   char persistence,
												   TransactionId *freezeXid,
												   MultiXactId *minmulti);
extern SLIM_HIDDEN void slim_relation_copy_data(Relation rel,
												const SlimFileLocator *newloc);

#endif							/* SLIM_AM_H */
