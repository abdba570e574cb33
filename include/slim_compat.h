/*-------------------------------------------------------------------------
 *
 * slim_compat.h
 *	  What differs between the PostgreSQL versions slimheap builds against
 *	  (15 to 18; tested on 15, 17 and 18), each difference guarded once,
 *	  here.
 *
 * The code calls the slim_* names below and never tests versions itself.
 * The exceptions are callbacks whose own parameter lists changed, guarded
 * where each is defined: tuple_update (TU_UpdateIndexes from 16 on,
 * slim_am_write.c, and its caller slim_index_move.c, with
 * ExecInsertIndexTuples' onlySummarizing; cluster_rel taking the relation
 * in 18; RestrictSearchPath from 17), scan_bitmap_next_tuple (18, slim_am_read.c), and the
 * slot's copy_minimal_tuple (`extra`, 18) and is_current_xact_tuple (new
 * in 17) in slim_slot.c.
 *
 * Most of the table AM changes between 15 and 18 need no guard at all,
 * because slimheap takes those callbacks from heap's routine as they are:
 * relation_set_new_filenode becoming relation_set_new_filelocator (16),
 * relation_copy_data taking a RelFileLocator (16), scan_analyze_next_block
 * taking a ReadStream (17), the bitmap scan callbacks (18).  CompactAttribute
 * (18) is a cache beside pg_attribute's form; TupleDescAttr() still returns
 * the full attribute in 18, which is all slimheap reads.  docs/versions.md
 * lists every difference and what was done about it.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_compat.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_COMPAT_H
#define SLIM_COMPAT_H

#include "access/genam.h"
#include "access/heapam.h"
#include "access/hio.h"
#include "access/htup_details.h"
#include "access/tupdesc.h"
#if PG_VERSION_NUM >= 190000
#include "commands/repack.h"
#else
#include "commands/cluster.h"
#endif
#include "executor/tuptable.h"
#include "storage/bufmgr.h"

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 200000
#error "slimheap supports PostgreSQL 15 to 19 (README.md, docs/versions.md)"
#endif

/*
 * Fill in the composite-datum fields of a tuple header being formed (length,
 * type, typmod), as heap_form_tuple() does.
 *
 * PostgreSQL 15.20 added heap_tuple_set_datum(), which also marks the
 * header as a datum and stores the version of a versioned row type; a tuple
 * formed without it on such a server would lack what the server's own
 * formers write.  15.0 to 15.19 and 18 do not have the function, so the
 * Makefile looks for it in the installed access/htup_details.h and defines
 * SLIM_HAVE_HEAP_TUPLE_SET_DATUM when it is declared there (a minor version
 * number cannot tell: the function is in 15.20 but not in 18.6).
 *
 * natts must already be set in the header: heap_tuple_set_datum() reads it.
 */
#ifdef SLIM_HAVE_HEAP_TUPLE_SET_DATUM
#define slim_tuple_set_datum(td, tupdesc, len) \
	heap_tuple_set_datum((td), (tupdesc), (len))
#else
static inline void
slim_tuple_set_datum(HeapTupleHeader td, TupleDesc tupdesc, uint32 len)
{
	HeapTupleHeaderSetDatumLength(td, len);
	HeapTupleHeaderSetTypeId(td, tupdesc->tdtypeid);
	HeapTupleHeaderSetTypMod(td, tupdesc->tdtypmod);
	/* as heap_form_tuple(): t_ctid is invalid unless explicitly set */
	ItemPointerSetInvalid(&td->t_ctid);
}
#endif

/*
 * Minimal tuples with room in front: PostgreSQL 18 lets callers of
 * copy_minimal_tuple ask for `extra` zeroed bytes before the tuple (hash
 * aggregation keeps its own header there).  Before 18 there is no such
 * room, and callers pass 0.
 */
#if PG_VERSION_NUM >= 180000
#define slim_minimal_tuple_from_heap_tuple(tuple, extra) \
	minimal_tuple_from_heap_tuple((tuple), (extra))
#define slim_heap_form_minimal_tuple(tupdesc, values, isnull, extra) \
	heap_form_minimal_tuple((tupdesc), (values), (isnull), (extra))
#else
#define slim_minimal_tuple_from_heap_tuple(tuple, extra) \
	(AssertMacro((extra) == 0), minimal_tuple_from_heap_tuple(tuple))
#define slim_heap_form_minimal_tuple(tupdesc, values, isnull, extra) \
	(AssertMacro((extra) == 0), heap_form_minimal_tuple((tupdesc), (values), (isnull)))
#endif

/*
 * Extend a relation by what a load needs, not more.  From 16 on, heap
 * extends a relation in bulk for a load with a bulk-insert state (COPY,
 * CREATE TABLE AS): each extension at least as large as all earlier ones of
 * the load together, up to 64 pages, so a load ends with up to 63 pages
 * extended and never used (docs/versions.md).  slimheap's files
 * are smaller, so that tail weighs more on them; forgetting what the load
 * extended so far makes each extension what the rows at hand need (more
 * waiters on the extension lock still make it larger).  15 extends a page
 * at a time.
 */
#if PG_VERSION_NUM >= 160000
#define slim_extend_as_needed(bistate) \
	do { \
		if ((bistate) != NULL) \
			(bistate)->already_extended_by = 0; \
	} while (0)
#else
#define slim_extend_as_needed(bistate)	((void) (bistate))
#endif

/*
 * index_beginscan() without instrumentation: PostgreSQL 18 added an
 * IndexScanInstrumentation argument (for EXPLAIN's index search counts),
 * which internal scans such as CLUSTER's pass as NULL.
 */
#if PG_VERSION_NUM >= 190000
/* 19 also takes flags of the scan (SO_NONE: as before) */
#define slim_index_beginscan(heap, index, snapshot, nkeys, norderbys) \
	index_beginscan((heap), (index), (snapshot), NULL, (nkeys), (norderbys), \
					SO_NONE)
#elif PG_VERSION_NUM >= 180000
#define slim_index_beginscan(heap, index, snapshot, nkeys, norderbys) \
	index_beginscan((heap), (index), (snapshot), NULL, (nkeys), (norderbys))
#else
#define slim_index_beginscan(heap, index, snapshot, nkeys, norderbys) \
	index_beginscan((heap), (index), (snapshot), (nkeys), (norderbys))
#endif

/*
 * Whether role owns relation relid (or is a superuser): one function per
 * object class before 16, object_ownercheck() from 16 on.  For callers
 * that include utils/acl.h.
 */
#if PG_VERSION_NUM >= 160000
#define slim_relation_ownercheck(relid, role) \
	object_ownercheck(RelationRelationId, (relid), (role))
#else
#define slim_relation_ownercheck(relid, role) \
	pg_class_ownercheck((relid), (role))
#endif

/*
 * Whether relation rel got its storage in the current transaction: created
 * (CREATE INDEX), or given a new file (REINDEX).  16 renamed the field of
 * the new file.
 */
#if PG_VERSION_NUM >= 160000
#define slim_storage_is_new(rel) \
	((rel)->rd_createSubid != InvalidSubTransactionId || \
	 (rel)->rd_firstRelfilelocatorSubid != InvalidSubTransactionId)
#else
#define slim_storage_is_new(rel) \
	((rel)->rd_createSubid != InvalidSubTransactionId || \
	 (rel)->rd_firstRelfilenodeSubid != InvalidSubTransactionId)
#endif

/*
 * Infinite intervals ('infinity', '-infinity') exist from PostgreSQL 17 on;
 * before, every interval is finite.  For callers that include
 * datatype/timestamp.h.
 */
#if PG_VERSION_NUM >= 170000
#define slim_interval_is_infinite(iv)	INTERVAL_NOT_FINITE(iv)
#define slim_interval_is_negative_infinity(iv)	INTERVAL_IS_NOBEGIN(iv)
#else
#define slim_interval_is_infinite(iv)	((void) (iv), false)
#define slim_interval_is_negative_infinity(iv)	((void) (iv), false)
#endif

/*
 * A sequential scan of a table: 19's table_beginscan() takes flags of the
 * scan too (SO_NONE: as before).
 */
#if PG_VERSION_NUM >= 190000
#define slim_table_beginscan(rel, snapshot, nkeys, key) \
	table_beginscan((rel), (snapshot), (nkeys), (key), SO_NONE)
#else
#define slim_table_beginscan(rel, snapshot, nkeys, key) \
	table_beginscan((rel), (snapshot), (nkeys), (key))
#endif

/*
 * The options of the table AM's write callbacks.  19 made the insert
 * callbacks' options uint32 (int before), gave tuple_update and
 * tuple_delete options of their own (and heap_update() too), and turned
 * tuple_delete's changingPart into one of them.  The parameter lists below
 * expand to what each version's callback takes: in a callback's
 * definition, SLIM_xxx_PARAM; in a call, SLIM_xxx_ARG (the caller's own
 * value), or SLIM_NO_UPDATE_OPTIONS for a call of our own;
 * SLIM_UPDATE_OPTIONS_VALUE is the options as a value (0 before 19).
 */
#if PG_VERSION_NUM >= 190000
typedef uint32 SlimInsertOptions;
#define SLIM_UPDATE_OPTIONS_PARAM	uint32 options,
#define SLIM_UPDATE_OPTIONS_ARG		options,
#define SLIM_UPDATE_OPTIONS_VALUE	options
#define SLIM_NO_UPDATE_OPTIONS		0,
#define SLIM_DELETE_OPTIONS_PARAM	uint32 options,
#define SLIM_DELETE_OPTIONS_ARG		options,
#define SLIM_DELETE_PART_PARAM
#define SLIM_DELETE_PART_ARG
#else
typedef int SlimInsertOptions;
#define SLIM_UPDATE_OPTIONS_PARAM
#define SLIM_UPDATE_OPTIONS_ARG
#define SLIM_UPDATE_OPTIONS_VALUE	0
#define SLIM_NO_UPDATE_OPTIONS
#define SLIM_DELETE_OPTIONS_PARAM
#define SLIM_DELETE_OPTIONS_ARG
#define SLIM_DELETE_PART_PARAM		, bool changingPart
#define SLIM_DELETE_PART_ARG		, changingPart
#endif

/*
 * What an UPDATE tells its caller about index entries: 16 made it an enum
 * (none, all, summarizing only); 15 says whether the new row needs any.
 */
#if PG_VERSION_NUM >= 160000
typedef TU_UpdateIndexes SlimUpdateIndexes;
#define SLIM_UPDATE_NEEDS_INDEXES(u)	((u) != TU_None)
#define SLIM_UPDATE_SUMMARIZING_ONLY(u)	((u) == TU_Summarizing)
#else
typedef bool SlimUpdateIndexes;
#define SLIM_UPDATE_NEEDS_INDEXES(u)	(u)
#define SLIM_UPDATE_SUMMARIZING_ONLY(u)	((void) (u), false)
#endif

/*
 * heap_update() with every version's arguments; options are 19's (0
 * before, where there are none).
 */
static inline TM_Result
slim_heap_update(Relation rel, ItemPointer otid, HeapTuple tuple,
				 CommandId cid, uint32 options, Snapshot crosscheck,
				 bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
				 SlimUpdateIndexes *update_indexes)
{
#if PG_VERSION_NUM >= 190000
	return heap_update(rel, otid, tuple, cid, options, crosscheck, wait,
					   tmfd, lockmode, update_indexes);
#elif PG_VERSION_NUM >= 160000
	Assert(options == 0);
	return heap_update(rel, otid, tuple, cid, crosscheck, wait, tmfd,
					   lockmode, update_indexes);
#else
	TM_Result	result;

	Assert(options == 0);
	result = heap_update(rel, otid, tuple, cid, crosscheck, wait, tmfd,
						 lockmode);
	/* a HOT update needs no new index entries */
	*update_indexes = result == TM_Ok && !HeapTupleIsHeapOnly(tuple);
	return result;
#endif
}

/*
 * The index entries of a row stored again (not a HOT update) in every
 * index ready for inserts, as a plain insert makes them (no "unchanged by
 * the update" hint: the caller's ResultRelInfo has no range table entry):
 * 16 added onlySummarizing, 19 made the booleans flags and moved the
 * slot.  For callers that include executor/executor.h.
 */
#if PG_VERSION_NUM >= 190000
#define slim_insert_index_tuples(rri, slot, estate, summarizing_only) \
	ExecInsertIndexTuples((rri), (estate), \
						  (summarizing_only) ? EIIT_ONLY_SUMMARIZING : 0, \
						  (slot), NIL, NULL)
#elif PG_VERSION_NUM >= 160000
#define slim_insert_index_tuples(rri, slot, estate, summarizing_only) \
	ExecInsertIndexTuples((rri), (slot), (estate), false, false, NULL, NIL, \
						  (summarizing_only))
#else
#define slim_insert_index_tuples(rri, slot, estate, summarizing_only) \
	((void) (summarizing_only), \
	 ExecInsertIndexTuples((rri), (slot), (estate), false, false, NULL, NIL))
#endif

/*
 * On-access pruning of a page held pinned, unlocked.  19 passes a buffer
 * of the visibility map (which it may set) and whether the statement only
 * reads the relation.
 */
#if PG_VERSION_NUM >= 190000
static inline void
slim_page_prune_opt(Relation rel, Buffer buf)
{
	Buffer		vmbuffer = InvalidBuffer;

	heap_page_prune_opt(rel, buf, &vmbuffer, false);
	if (BufferIsValid(vmbuffer))
		ReleaseBuffer(vmbuffer);
}
#else
#define slim_page_prune_opt(rel, buf)	heap_page_prune_opt((rel), (buf))
#endif

/*
 * VACUUM FULL of a relation, locked AccessExclusiveLock: cluster_rel()
 * took the relation's OID before 18, the opened relation from 18 on (and
 * closes it), and from 19 also the command it runs for (CLUSTER became a
 * form of REPACK, commands/repack.h) and whether it is the top level.
 */
#if PG_VERSION_NUM >= 190000
#define slim_vacuum_full_rel(relid, params) \
	cluster_rel(REPACK_COMMAND_VACUUMFULL, \
				table_open((relid), AccessExclusiveLock), InvalidOid, \
				(params), false)
#elif PG_VERSION_NUM >= 180000
#define slim_vacuum_full_rel(relid, params) \
	cluster_rel(table_open((relid), AccessExclusiveLock), InvalidOid, (params))
#else
#define slim_vacuum_full_rel(relid, params) \
	cluster_rel((relid), InvalidOid, (params))
#endif

/*
 * The progress parameters of CLUSTER and VACUUM FULL, which 19 named after
 * REPACK (commands/progress.h), as this project names them.
 */
#if PG_VERSION_NUM >= 190000
#define SLIM_PROGRESS_PHASE					PROGRESS_REPACK_PHASE
#define SLIM_PROGRESS_INDEX_RELID			PROGRESS_REPACK_INDEX_RELID
#define SLIM_PROGRESS_HEAP_TUPLES_SCANNED	PROGRESS_REPACK_HEAP_TUPLES_SCANNED
#define SLIM_PROGRESS_HEAP_TUPLES_WRITTEN	PROGRESS_REPACK_HEAP_TUPLES_INSERTED
#define SLIM_PROGRESS_TOTAL_HEAP_BLKS		PROGRESS_REPACK_TOTAL_HEAP_BLKS
#define SLIM_PROGRESS_HEAP_BLKS_SCANNED		PROGRESS_REPACK_HEAP_BLKS_SCANNED
#define SLIM_PROGRESS_PHASE_SEQ_SCAN_HEAP	PROGRESS_REPACK_PHASE_SEQ_SCAN_HEAP
#define SLIM_PROGRESS_PHASE_INDEX_SCAN_HEAP	PROGRESS_REPACK_PHASE_INDEX_SCAN_HEAP
#define SLIM_PROGRESS_PHASE_SORT_TUPLES		PROGRESS_REPACK_PHASE_SORT_TUPLES
#define SLIM_PROGRESS_PHASE_WRITE_NEW_HEAP	PROGRESS_REPACK_PHASE_WRITE_NEW_HEAP
#else
#define SLIM_PROGRESS_PHASE					PROGRESS_CLUSTER_PHASE
#define SLIM_PROGRESS_INDEX_RELID			PROGRESS_CLUSTER_INDEX_RELID
#define SLIM_PROGRESS_HEAP_TUPLES_SCANNED	PROGRESS_CLUSTER_HEAP_TUPLES_SCANNED
#define SLIM_PROGRESS_HEAP_TUPLES_WRITTEN	PROGRESS_CLUSTER_HEAP_TUPLES_WRITTEN
#define SLIM_PROGRESS_TOTAL_HEAP_BLKS		PROGRESS_CLUSTER_TOTAL_HEAP_BLKS
#define SLIM_PROGRESS_HEAP_BLKS_SCANNED		PROGRESS_CLUSTER_HEAP_BLKS_SCANNED
#define SLIM_PROGRESS_PHASE_SEQ_SCAN_HEAP	PROGRESS_CLUSTER_PHASE_SEQ_SCAN_HEAP
#define SLIM_PROGRESS_PHASE_INDEX_SCAN_HEAP	PROGRESS_CLUSTER_PHASE_INDEX_SCAN_HEAP
#define SLIM_PROGRESS_PHASE_SORT_TUPLES		PROGRESS_CLUSTER_PHASE_SORT_TUPLES
#define SLIM_PROGRESS_PHASE_WRITE_NEW_HEAP	PROGRESS_CLUSTER_PHASE_WRITE_NEW_HEAP
#endif

/*
 * relation_copy_for_cluster: 19 passes the snapshot of REPACK
 * (CONCURRENTLY), which core allows on heap tables only (NULL here).
 */
#if PG_VERSION_NUM >= 190000
#define SLIM_COPY_FOR_CLUSTER_SNAPSHOT_PARAM	Snapshot snapshot,
#else
#define SLIM_COPY_FOR_CLUSTER_SNAPSHOT_PARAM
#endif

/*
 * ANALYZE's tuple callback: 19 dropped OldestXmin (heap computes it).
 */
#if PG_VERSION_NUM >= 190000
#define SLIM_ANALYZE_XMIN_PARAM
#define SLIM_ANALYZE_XMIN_ARG
#else
#define SLIM_ANALYZE_XMIN_PARAM		TransactionId OldestXmin,
#define SLIM_ANALYZE_XMIN_ARG		OldestXmin,
#endif

/*
 * The bitmap scan's tuple callback: 18 moved the page's iteration into the
 * AM, which now reports the recheck flag and the page counts itself.
 */
#if PG_VERSION_NUM >= 180000
#define SLIM_BITMAP_NEXT_TUPLE_PARAMS \
	TableScanDesc scan, TupleTableSlot *slot, bool *recheck, \
	uint64 *lossy_pages, uint64 *exact_pages
#else
#define SLIM_BITMAP_NEXT_TUPLE_PARAMS \
	TableScanDesc scan, struct TBMIterateResult *tbmres, TupleTableSlot *slot
#endif

/*
 * The planner hook that sees each base relation: get_relation_info_hook
 * until 18; 19 replaced it with build_simple_rel_hook (optimizer/
 * pathnode.h), called with the range table entry.  slim_rel_hook_args()
 * gives the entry's relation OID and inheritance flag.
 */
#if PG_VERSION_NUM >= 190000
#define slim_rel_hook_type				build_simple_rel_hook_type
#define slim_rel_hook					build_simple_rel_hook
#define SLIM_REL_HOOK_PARAMS \
	PlannerInfo *root, RelOptInfo *rel, RangeTblEntry *rte
#define SLIM_REL_HOOK_ARGS				root, rel, rte
#define slim_rel_hook_args(relid, inhparent) \
	((relid) = rte->relid, (inhparent) = rte->inh, rte->rtekind == RTE_RELATION)
#else
#define slim_rel_hook_type				get_relation_info_hook_type
#define slim_rel_hook					get_relation_info_hook
#define SLIM_REL_HOOK_PARAMS \
	PlannerInfo *root, Oid relationObjectId, bool inhparent_arg, RelOptInfo *rel
#define SLIM_REL_HOOK_ARGS				root, relationObjectId, inhparent_arg, rel
#define slim_rel_hook_args(relid, inhparent) \
	((relid) = relationObjectId, (inhparent) = inhparent_arg, true)
#endif

/*
 * A slot's callback that deforms: 19 wants it to fill in the missing
 * values past the row's attributes itself and set tts_nvalid (its caller
 * did before); heap's deforming of 19 writes isnull eight entries at a
 * time, so a deforming to n attributes may overwrite up to the next
 * multiple of 8.
 */
#if PG_VERSION_NUM >= 190000
#define SLIM_SLOT_FILLS_MISSING		1
#define slim_heap_deform_reach(n, natts)	Min(TYPEALIGN(8, (n)), (natts))
#else
#define SLIM_SLOT_FILLS_MISSING		0
#define slim_heap_deform_reach(n, natts)	((void) (natts), (n))
#endif

/*
 * A relation's file as three numbers (RelFileNode until 15, RelFileLocator
 * from 16), for slimheap's own WAL record, the records of full files and
 * the callbacks that make files (relation_set_new_filenode until 15,
 * relation_set_new_filelocator from 16), and a reorder buffer change's
 * (relnode, rlocator).  The reorder buffer's allocators are renamed in 18,
 * and a change's new tuple is a HeapTuple from 17 on (a tuple buffer
 * holding one before).  Callers include replication/reorderbuffer.h.
 */
/*
 * Does this backend hold relid's lock in mode?  LockHeldByMe() takes an
 * "or stronger" flag from 17 on (CheckRelationOidLockedByMe() is not in
 * every 15 minor release).
 */
#if PG_VERSION_NUM >= 170000
#define slim_lock_held_by_me(tag, mode)	LockHeldByMe((tag), (mode), false)
#else
#define slim_lock_held_by_me(tag, mode)	LockHeldByMe((tag), (mode))
#endif

#if PG_VERSION_NUM >= 160000
typedef RelFileLocator SlimFileLocator;
#define slim_locator_spc(loc)	((loc)->spcOid)
#define slim_locator_num(loc)	((loc)->relNumber)
#define slim_routine_set_new_file	relation_set_new_filelocator
#define slim_rel_file(rel, spc, db, num) \
	((spc) = (rel)->rd_locator.spcOid, (db) = (rel)->rd_locator.dbOid, \
	 (num) = (rel)->rd_locator.relNumber)
#define slim_change_set_file(change, spc, db, num) \
	((change)->data.tp.rlocator.spcOid = (spc), \
	 (change)->data.tp.rlocator.dbOid = (db), \
	 (change)->data.tp.rlocator.relNumber = (num))
#else
typedef RelFileNode SlimFileLocator;
#define slim_locator_spc(loc)	((loc)->spcNode)
#define slim_locator_num(loc)	((loc)->relNode)
#define slim_routine_set_new_file	relation_set_new_filenode
#define slim_rel_file(rel, spc, db, num) \
	((spc) = (rel)->rd_node.spcNode, (db) = (rel)->rd_node.dbNode, \
	 (num) = (rel)->rd_node.relNode)
#define slim_change_set_file(change, spc, db, num) \
	((change)->data.tp.relnode.spcNode = (spc), \
	 (change)->data.tp.relnode.dbNode = (db), \
	 (change)->data.tp.relnode.relNode = (num))
#endif
/*
 * 19's REPACK (CONCURRENTLY) decodes WAL in a worker of its own, for one
 * heap table, and its output plugin takes every change it is handed as
 * that table's (heap's decoder leaves the others out): slimheap's records
 * are never for it.
 */
#if PG_VERSION_NUM >= 190000
#define slim_decoding_for_repack()	AmRepackWorker()
#else
#define slim_decoding_for_repack()	false
#endif
#if PG_VERSION_NUM >= 180000
#define slim_rb_alloc_change(rb)	ReorderBufferAllocChange(rb)
#define slim_rb_alloc_newtuple(rb, change, len) \
	((change)->data.tp.newtuple = ReorderBufferAllocTupleBuf((rb), (len)))
#elif PG_VERSION_NUM >= 170000
#define slim_rb_alloc_change(rb)	ReorderBufferGetChange(rb)
#define slim_rb_alloc_newtuple(rb, change, len) \
	((change)->data.tp.newtuple = ReorderBufferGetTupleBuf((rb), (len)))
#else
#define slim_rb_alloc_change(rb)	ReorderBufferGetChange(rb)
#define slim_rb_alloc_newtuple(rb, change, len) \
	(&((change)->data.tp.newtuple = ReorderBufferGetTupleBuf((rb), (len)))->tuple)
#endif

/* flags of a slot that its deforming keeps: 19 has none (TTS_FLAG_SLOW) */
#if PG_VERSION_NUM >= 190000
#define SLIM_TTS_DEFORM_FLAGS	0
#else
#define SLIM_TTS_DEFORM_FLAGS	TTS_FLAG_SLOW
#endif

/*
 * What makes heap log rows for logical decoding, in messages: wal_level =
 * logical until 18; from 19 on also a logical slot under wal_level =
 * replica (effective_wal_level).
 */
#if PG_VERSION_NUM >= 190000
#define SLIM_LOGICAL_WAL_PHRASE		"logical decoding is active"
#else
#define SLIM_LOGICAL_WAL_PHRASE		"wal_level is logical"
#endif

/*
 * A symbol of the library's own, reached without the GOT (16 and later
 * build modules with -fvisibility=hidden; 15 does not).
 */
#if defined(__GNUC__)
#define SLIM_HIDDEN __attribute__((visibility("hidden")))
#else
#define SLIM_HIDDEN
#endif

/*
 * The PID of the session of a virtual transaction ID (0 for a prepared
 * transaction): 17 renamed backendId to procNumber and its lookup, and
 * moved lxid into PGPROC's vxid.  A prepared transaction keeps the VXID of
 * the session that prepared it, whose slot another session may hold now:
 * that session's local transaction ID differs.
 */
#if PG_VERSION_NUM >= 170000
#include "storage/procarray.h"
#define slim_vxid_proc(vxid) ProcNumberGetProc((vxid).procNumber)
#define slim_proc_lxid(proc) ((proc)->vxid.lxid)
#else
#include "storage/sinvaladt.h"
#define slim_vxid_proc(vxid) BackendIdGetProc((vxid).backendId)
#define slim_proc_lxid(proc) ((proc)->lxid)
#endif
#include "storage/proc.h"

static inline int
slim_vxid_pid(VirtualTransactionId vxid)
{
	PGPROC	   *proc = slim_vxid_proc(vxid);

	if (proc == NULL || slim_proc_lxid(proc) != vxid.localTransactionId)
		return 0;
	return proc->pid;
}

/*
 * VACUUM: relation_vacuum's parameters became const in 19; the delay point
 * takes is_analyze from 18; the failsafe is a global from 16 (on 15, the
 * test VACUUM applies: the table's xid or multixact age past the failsafe
 * age or 105% of the freeze maximum, whichever is larger).
 */
#if PG_VERSION_NUM >= 190000
#define SLIM_VACUUM_PARAMS const VacuumParams *
#else
#define SLIM_VACUUM_PARAMS struct VacuumParams *
#endif
#if PG_VERSION_NUM >= 180000
#define slim_vacuum_delay_point() vacuum_delay_point(false)
#else
#define slim_vacuum_delay_point() vacuum_delay_point()
#endif
/* from 16 the cost settings VACUUM uses are set from the GUCs by a call */
#if PG_VERSION_NUM >= 160000
#define slim_vacuum_update_costs() VacuumUpdateCosts()
#else
#define slim_vacuum_update_costs() ((void) 0)
#endif
#if PG_VERSION_NUM >= 160000
#define slim_vacuum_failsafe_active(rel) (VacuumFailsafeActive)
#else
#define slim_vacuum_failsafe_active(rel) \
	((TransactionIdIsNormal((rel)->rd_rel->relfrozenxid) && \
	  (int32) (ReadNextTransactionId() - (rel)->rd_rel->relfrozenxid) > \
	  Max(vacuum_failsafe_age, autovacuum_freeze_max_age * 1.05)) || \
	 (MultiXactIdIsValid((rel)->rd_rel->relminmxid) && \
	  (int32) (ReadNextMultiXactId() - (rel)->rd_rel->relminmxid) > \
	  Max(vacuum_multixact_failsafe_age, \
		  autovacuum_multixact_freeze_max_age * 1.05)))
#endif

/* a partitioned table has an access method of its own from 17 on */
#define SLIM_PARTITIONED_HAS_AM (PG_VERSION_NUM >= 170000)

/*
 * Whether a scan or index fetch under snapshot must hand heap's buffer-heap
 * slot the row as stored, not widened (slim_am_read.c).  19's search for
 * the deleted row of an update_deleted conflict (execReplication.c) scans
 * with SnapshotAny, then reads the slot's buffer and the row's header
 * through ExecFetchSlotHeapTuple(); before 19 no core reader of a user
 * table does.  A slimheap slot read so lends its stored row too
 * (slim_slot_read_under(), slim_slot.h).
 */
#if PG_VERSION_NUM >= 190000
#define SLIM_STORED_FORM_UNDER_ANY	true
#define SLIM_READS_STORED_FORM(snapshot)	((snapshot) == SnapshotAny)
#else
#define SLIM_STORED_FORM_UNDER_ANY	false
#define SLIM_READS_STORED_FORM(snapshot)	false
#endif

#endif							/* SLIM_COMPAT_H */
