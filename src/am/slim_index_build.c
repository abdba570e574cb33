/*-------------------------------------------------------------------------
 *
 * slim_index_build.c
 *	  Index builds over rows that keep indexed columns in a compressed tail.
 *
 * heap's index-build scan reads a tail row's standard prefix only, and
 * heap_update() later decides HOT and key changes from that prefix too
 * (invariant C1, docs/format.md "Index builds").  So every row whose
 * prefix does not show a value the index reads is re-laid out in place
 * with the column in its prefix (slim_relayout.c), before heap's scan on
 * compress tables; a row that cannot be (no room on its page) is indexed
 * with its real values during heap's scan, and stored again: a new row
 * version in the build's transaction, with entries in the table's
 * indexes, firing no triggers (slim_index_move.c).
 *
 * - A plain build (ShareLock or stronger: no other writer) indexes the old
 *   version and moves the rows when the statement (or, inside REINDEX of a
 *   schema, the transaction) ends, when the index can take their entries.
 * - A concurrent build leaves such rows out of its snapshot's index and
 *   moves them at once: the validation pass then finds the new versions,
 *   or whatever a concurrent update made of them.
 * - Builds on compress tables run without parallel workers, which cannot
 *   write; plain builds on one table take turns (slim_lock_moves()).
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_index_build.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/parallel.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "storage/bufmgr.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "slim_am.h"
#include "slim_compat.h"
#include "slim_heap_slot.h"
#include "slim_index.h"
#include "slim_relayout.h"
#include "slim_tail.h"
#include "slimheap.h"

typedef struct SlimBuildState
{
	Relation	rel;
	IndexInfo  *index_info;
	HeapScanDesc hscan;
	IndexBuildCallback callback;
	void	   *callback_state;
	Bitmapset  *attrs;			/* what the index reads, as pull_varattnos */
	bool		whole_row;
	int			last_attr;		/* the last attribute it reads */
	bool		evaluates_here;	/* expressions, predicate: here, not by heap */
	ExprState  *predicate;		/* the predicate, evaluated here, or NULL */
	EState	   *estate;
	TupleTableSlot *row;		/* a row with a tail: every column, decoded */
	TupleTableSlot *stored;		/* a standard row, as heap stores it */
	TupleTableSlot *successor;		/* the HOT successor of a row, decoded */
	bool		move_now;		/* a concurrent build of a DDL statement */
	SlimMover  *mover;			/* made when the first row must move */
	double		live_rows;		/* rows heap called live */
	double		hidden_rows;	/* of them, rows that hide a value */
} SlimBuildState;

/* the attributes an index reads: keys, INCLUDE, expressions, predicate */
static Bitmapset *
slim_index_info_attrs(IndexInfo *index_info)
{
	Bitmapset  *attrs = NULL;
	int			i;

	for (i = 0; i < index_info->ii_NumIndexAttrs; i++)
	{
		AttrNumber	attnum = index_info->ii_IndexAttrNumbers[i];

		if (attnum > 0)
			attrs = bms_add_member(attrs, attnum -
								   FirstLowInvalidHeapAttributeNumber);
	}
	pull_varattnos((Node *) index_info->ii_Expressions, 1, &attrs);
	pull_varattnos((Node *) index_info->ii_Predicate, 1, &attrs);
	return attrs;
}

/*
 * Whether the index reads the same values in rows a and b (every
 * attribute, decoded) for the attributes of bs.
 */
static bool
slim_index_values_equal(const SlimBuildState *bs, TupleTableSlot *a,
						TupleTableSlot *b)
{
	TupleDesc	desc = RelationGetDescr(bs->rel);
	int			i;

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!bs->whole_row &&
			!bms_is_member(i + 1 - FirstLowInvalidHeapAttributeNumber,
						   bs->attrs))
			continue;
		if (a->tts_isnull[i] != b->tts_isnull[i] ||
			(!a->tts_isnull[i] &&
			 !datumIsEqual(a->tts_values[i], b->tts_values[i],
						   att->attbyval, att->attlen)))
			return false;
	}
	return true;
}

/*
 * A concurrent build, at a row its snapshot sees that was updated as HOT
 * since (by a transaction still running, or that committed after the
 * snapshot was taken).  Heap indexes the row at its chain's root and no
 * later version of the chain: right when the chain keeps the index's
 * values, as every HOT update decided with the new index in view does.
 * An update decided on a prefix that hid an indexed value (before the
 * row was re-laid out) may have changed one all the same; such a chain
 * would answer the index with a row of other values.  The build fails
 * instead, with a serialization failure (docs/limits.md).
 */
static void
slim_check_hot_successor(SlimBuildState *bs, HeapTuple tuple)
{
	Buffer		buf = bs->hscan->rs_cbuf;
	Page		page = BufferGetPage(buf);
	OffsetNumber next = ItemPointerGetOffsetNumber(&tuple->t_data->t_ctid);
	HeapTupleData successor;
	HeapTuple	copy = NULL;
	ItemId		lp;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	if (ItemPointerGetBlockNumber(&tuple->t_data->t_ctid) ==
		BufferGetBlockNumber(buf) &&
		next >= FirstOffsetNumber && next <= PageGetMaxOffsetNumber(page) &&
		ItemIdIsNormal(lp = PageGetItemId(page, next)))
	{
		successor.t_data = (HeapTupleHeader) PageGetItem(page, lp);
		successor.t_len = ItemIdGetLength(lp);
		successor.t_tableOid = RelationGetRelid(bs->rel);
		ItemPointerSet(&successor.t_self, BufferGetBlockNumber(buf), next);
		copy = heap_copytuple(&successor);
	}
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	if (copy == NULL)
		return;

	ExecClearTuple(bs->row);
	(void) slim_deform_tuple(tuple, bs->row->tts_tupleDescriptor,
						 bs->row->tts_values, bs->row->tts_isnull);
	ExecStoreVirtualTuple(bs->row);
	ExecClearTuple(bs->successor);
	(void) slim_deform_tuple(copy, bs->successor->tts_tupleDescriptor,
						 bs->successor->tts_values, bs->successor->tts_isnull);
	ExecStoreVirtualTuple(bs->successor);
	if (!slim_index_values_equal(bs, bs->row, bs->successor))
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not serialize access due to concurrent update"),
				 errdetail("Row (%u,%u) of \"%s\" was updated as a HOT update of a version that kept an indexed column in its compressed tail while the index was being built.",
						   ItemPointerGetBlockNumber(&tuple->t_self),
						   ItemPointerGetOffsetNumber(&tuple->t_self),
						   RelationGetRelationName(bs->rel)),
				 errhint("Drop the invalid index and create it again.")));
	ExecClearTuple(bs->row);
	ExecClearTuple(bs->successor);
	heap_freetuple(copy);
}

/*
 * Stands between heap's build scan and the index: heap has read the row at
 * bs->hscan->rs_ctup (the live member of a HOT chain, indexed at its root,
 * tid) as a heap row, and formed values from it unless bs->evaluates_here.
 */
static void
slim_build_callback(Relation index, ItemPointer tid, Datum *values,
					bool *isnull, bool tupleIsAlive, void *state)
{
	SlimBuildState *bs = (SlimBuildState *) state;
	HeapTuple	tuple = &bs->hscan->rs_ctup;
	HeapTupleHeader td = tuple->t_data;
	bool		hidden;
	Datum		real_values[INDEX_MAX_KEYS];
	bool		real_isnull[INDEX_MAX_KEYS];
	TupleTableSlot *slot;
	ExprContext *econtext;

	if (tupleIsAlive)
		bs->live_rows++;
	if (bs->move_now && HeapTupleHeaderIsHotUpdated(td))
		slim_check_hot_successor(bs, tuple);

	/* heap's reading of the row is right unless its tail hides a value */
	hidden = HeapTupleHeaderGetNatts(td) < bs->last_attr &&
		slim_tail_hides(td, RelationGetDescr(bs->rel), bs->attrs,
						bs->whole_row);

	/* the common case: heap has read what the row holds */
	if (!bs->evaluates_here && !hidden)
	{
		bs->callback(index, tid, values, isnull, tupleIsAlive,
					 bs->callback_state);
		return;
	}

	econtext = GetPerTupleExprContext(bs->estate);
	ResetExprContext(econtext);
	if (hidden)
	{
		slot = bs->row;
		ExecClearTuple(slot);
		(void) slim_deform_tuple(tuple, slot->tts_tupleDescriptor,
							 slot->tts_values, slot->tts_isnull);
		ExecStoreVirtualTuple(slot);
	}
	else
	{
		/* heap's own reading is right: deform as lazily as heap does */
		slot = bs->stored;
		ExecStoreBufferHeapTuple(tuple, slot, bs->hscan->rs_cbuf);
	}
	econtext->ecxt_scantuple = slot;

	/* a live row that hides a value moves, whatever the predicate says */
	if (hidden && tupleIsAlive)
	{
		if (IsInParallelMode())
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("cannot build index \"%s\" in parallel: rows of table \"%s\" keep indexed columns in compressed tails",
							RelationGetRelationName(index),
							RelationGetRelationName(bs->rel)),
					 errdetail("Parallel workers cannot store those rows again with the columns in their prefix."),
					 errhint("Rewrite the table first (VACUUM FULL %s), or build the index with max_parallel_maintenance_workers = 0.",
							 RelationGetRelationName(bs->rel))));
		if (bs->move_now)
		{
			/*
			 * Concurrent: validate_index() indexes what replaces the row.
			 * The row itself, the version this build's snapshot sees, is
			 * indexed with its real values below, as heap's build indexes
			 * it: a unique build then meets duplicates in its own scan and
			 * fails there, before the index is ready for inserts, and its
			 * transaction takes the moves with it.
			 */
			if (bs->mover == NULL)
				bs->mover = slim_mover_begin(bs->rel, RelationGetRelid(index));
			slim_move_row(bs->mover, &tuple->t_self, slot->tts_values,
						  slot->tts_isnull);
		}
		else
			bs->hidden_rows++;
	}

	if (bs->predicate != NULL && !ExecQual(bs->predicate, econtext))
		return;
	if (bs->evaluates_here || hidden)
	{
		FormIndexDatum(bs->index_info, slot, bs->estate, real_values,
					   real_isnull);
		values = real_values;
		isnull = real_isnull;
	}
	bs->callback(index, tid, values, isnull, tupleIsAlive, bs->callback_state);
}

/*
 * Whether a plain build moves the rows that hide what the table's indexes
 * read before its scan, rather than when its statement ends: on a compress
 * table, for an index that reads a column past the first
 * SLIM_FREE_PREFIX_NATTS (always in the prefix).  Moved there, the rows
 * are in place before the index exists for anyone else, and before any
 * code of the statement's (event triggers at ddl_command_end) can update
 * one of them with a HOT decision taken on its old prefix; and heap's scan
 * then indexes the moved rows in its own order (docs/format.md, "Index
 * builds").  Other tables keep compress tails only from an earlier mode:
 * their rows move when the statement ends.
 */
static bool
slim_build_moves_first(Relation rel, Relation index, const SlimBuildState *bs)
{
	/*
	 * A build fills new storage; a scan of the whole table into an index
	 * that has its storage already is a check (amcheck's heapallindexed)
	 * or a summarization (BRIN's, range by range, called by VACUUM too).
	 * A concurrent build's storage was made by its first transaction.
	 */
	if (!bs->move_now && !slim_storage_is_new(index))
		return false;

	/*
	 * REINDEX, and the index rebuilds that end a rewrite (VACUUM FULL,
	 * CLUSTER, ALTER TABLE ... TYPE): the table's rows already satisfy C1
	 * for its indexes (a rewrite forms them with the old table's floors),
	 * and the other indexes may not be opened while they wait their turn.
	 */
	if (ReindexIsProcessingHeap(RelationGetRelid(rel)))
		return false;
	return (bs->whole_row || bs->last_attr > SLIM_FREE_PREFIX_NATTS) &&
		slim_get_relinfo(rel)->options.null_bitmap == SLIM_NULL_BITMAP_COMPRESS;
}

/*
 * Store again the rows of rel whose prefix hides what index (being built)
 * or another index reads, with the index counted in rel's prefix floor
 * (the floor cached for rel may not count it yet).  The moves are
 * heap_update()s that may not count the new index among the columns that
 * block HOT either: a moved row that stays on its page may be a HOT
 * update, whose new version heap's scan then indexes at the chain's root,
 * as it does for any HOT chain, marking the index indcheckxmin.
 */
static void
slim_move_before_build(Relation rel, Relation index, const SlimBuildState *bs)
{
	int			natts = bs->whole_row ? RelationGetDescr(rel)->natts :
		bs->last_attr;

	slim_relinfo_set_building(rel, bs->attrs);
	slim_progress_start(SLIM_PROGRESS_INDEX, RelationGetRelid(rel), 0);
	PG_TRY();
	{
		slim_move_hidden_rows(rel, RelationGetRelid(index), bs->attrs,
							  natts);
	}
	PG_FINALLY();
	{
		slim_relinfo_set_building(rel, NULL);
	}
	PG_END_TRY();
	slim_progress_end();
}

/*
 * A concurrent build, before its scan: re-lay out in place the rows that
 * hide what the index reads, with the index counted in the prefix floor
 * (writers count it already: the index is in the catalog).  Rows that
 * cannot be re-laid move during the scan (slim_build_callback()).
 */
static void
slim_relayout_before_build(Relation rel, const SlimBuildState *bs)
{
	int			natts = bs->whole_row ? RelationGetDescr(rel)->natts :
		bs->last_attr;
	Bitmapset  *attrs;
	uint64		relaid;

	if (!slim_relayout_possible(rel))
		return;
	attrs = bms_union(slim_index_attr_bitmap(rel), bs->attrs);
	slim_relinfo_set_building(rel, bs->attrs);
	slim_progress_start(SLIM_PROGRESS_INDEX, RelationGetRelid(rel), 0);
	PG_TRY();
	{
		(void) slim_relayout_table(rel, attrs, bs->whole_row,
								   Max(slim_index_natts(rel), natts),
								   &relaid);
	}
	PG_FINALLY();
	{
		slim_relinfo_set_building(rel, NULL);
	}
	PG_END_TRY();
	slim_progress_end();
	bms_free(attrs);
}

/*
 * index_build_range_scan: heap's scan, with rd_tableam pointed at heap's
 * routine (slim_heap_borrow.c), through slim_build_callback().  The scan is made
 * here when the caller gives none, as heap would make it, so that the
 * callback sees the row heap is at.
 */
double
slim_index_build_range_scan(Relation rel, Relation index,
							IndexInfo *index_info, bool allow_sync,
							bool anyvisible, bool progress,
							BlockNumber start_blockno, BlockNumber numblocks,
							IndexBuildCallback callback, void *callback_state,
							TableScanDesc scan)
{
	SlimBuildState bs;
	List	   *predicate = index_info->ii_Predicate;
	Snapshot	snapshot = NULL;
	bool		own_snapshot = false;
	double		ntuples;
	int			x = -1;
	const TableAmRoutine *own;
	IndexInfo	heap_info;
	List	   *expr_state;

	memset(&bs, 0, sizeof(bs));
	bs.rel = rel;
	bs.index_info = index_info;
	bs.callback = callback;
	bs.callback_state = callback_state;
	bs.attrs = slim_index_info_attrs(index_info);
	bs.whole_row = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber,
								 bs.attrs);
	while ((x = bms_next_member(bs.attrs, x)) >= 0)
		bs.last_attr = Max(bs.last_attr,
						   x + FirstLowInvalidHeapAttributeNumber);
	if (bs.whole_row)
		bs.last_attr = RelationGetDescr(rel)->natts;
	bs.estate = CreateExecutorState();
	bs.row = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsVirtual);
	bs.stored = slim_stored_form_slot(RelationGetDescr(rel));
	bs.successor = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsVirtual);

	/*
	 * An index with expressions or a predicate is evaluated here only, on
	 * the rows as they are: heap gets a copy of its IndexInfo that asks for
	 * nothing (heap would evaluate them on every row's prefix, where a
	 * predicate on a tail column could not protect an expression).
	 */
	bs.evaluates_here = index_info->ii_Expressions != NIL || predicate != NIL;
	expr_state = index_info->ii_ExpressionsState;
	heap_info = *index_info;
	if (bs.evaluates_here)
	{
		if (predicate != NIL)
			bs.predicate = ExecPrepareQual(predicate, bs.estate);
		heap_info.ii_NumIndexAttrs = 0;
		heap_info.ii_Expressions = NIL;
		heap_info.ii_ExpressionsState = NIL;
		heap_info.ii_Predicate = NIL;
		heap_info.ii_PredicateState = NULL;
	}

	/*
	 * Rows move during a CONCURRENTLY statement's scan, and at the end of
	 * any other utility statement (never inside a check such as amcheck's,
	 * which builds no index); a plain build that may move rows first waits
	 * its turn (slim_lock_moves()).
	 */
	bs.move_now = index_info->ii_Concurrent && slim_index_in_concurrent_ddl();
	/* a new index: its columns go to slimheap.index_columns, for dumps */
	if (slim_index_in_ddl() && !slim_index_in_reindex() && !IsInParallelMode() &&
		(slim_storage_is_new(index) || bs.move_now) &&
		!ReindexIsProcessingHeap(RelationGetRelid(rel)) &&
		slim_get_relinfo(rel)->options.null_bitmap == SLIM_NULL_BITMAP_COMPRESS)
		slim_index_columns_note(rel, bs.attrs);
	if (!index_info->ii_Concurrent && slim_index_in_ddl() &&
		!IsInParallelMode())
	{
		slim_index_lock_moves(rel);
		if (scan == NULL && start_blockno == 0 &&
			numblocks == InvalidBlockNumber &&
			slim_build_moves_first(rel, index, &bs))
			slim_move_before_build(rel, index, &bs);
	}
	else if (bs.move_now && scan == NULL && start_blockno == 0 &&
			 numblocks == InvalidBlockNumber &&
			 slim_build_moves_first(rel, index, &bs))
		slim_relayout_before_build(rel, &bs);

	own = slim_borrow_heap_routine(rel);
	PG_TRY();
	{
		if (scan == NULL)
		{
			/* as heap's build: SnapshotAny unless concurrent */
			if (index_info->ii_Concurrent || IsBootstrapProcessingMode())
			{
				snapshot = RegisterSnapshot(GetTransactionSnapshot());
				own_snapshot = true;
			}
			else
				snapshot = SnapshotAny;
			scan = table_beginscan_strat(rel, snapshot, 0, NULL, true,
										 allow_sync);
			if (!allow_sync)
				heap_setscanlimits(scan, start_blockno, numblocks);
		}
		bs.hscan = (HeapScanDesc) scan;

		ntuples = slim_heap_routine->index_build_range_scan(rel, index, &heap_info,
													   true, anyvisible,
													   progress, 0,
													   InvalidBlockNumber,
													   slim_build_callback,
													   &bs, scan);
	}
	PG_FINALLY();
	{
		slim_return_heap_routine(rel, own);
	}
	PG_END_TRY();
	if (bs.hidden_rows > 0 && slim_index_in_ddl())
		slim_index_note_pending(rel, bs.hidden_rows / bs.live_rows);

	/* heap tells a broken HOT chain through the IndexInfo it was given */
	index_info->ii_BrokenHotChain = heap_info.ii_BrokenHotChain;
	/* what FormIndexDatum() prepared here dies with bs.estate */
	index_info->ii_ExpressionsState = expr_state;

	if (own_snapshot)
		UnregisterSnapshot(snapshot);
	if (bs.mover != NULL)
		slim_mover_end(bs.mover);
	ExecDropSingleTupleTableSlot(bs.row);
	ExecDropSingleTupleTableSlot(bs.stored);
	ExecDropSingleTupleTableSlot(bs.successor);
	FreeExecutorState(bs.estate);
	bms_free(bs.attrs);
	return ntuples;
}

void
slim_index_validate_scan(Relation table_rel, Relation index_rel,
						 struct IndexInfo *index_info, Snapshot snapshot,
						 struct ValidateIndexState *state)
{
	const TableAmRoutine *own = slim_borrow_heap_routine(table_rel);

	PG_TRY();
	{
		slim_heap_routine->index_validate_scan(table_rel, index_rel, index_info,
												 snapshot, state);
	}
	PG_FINALLY();
	{
		slim_return_heap_routine(table_rel, own);
	}
	PG_END_TRY();
}

void
slim_index_build_init(void)
{
	slim_heap_borrow_init();
	slim_index_stmt_init();
}
