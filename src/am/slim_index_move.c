/*-------------------------------------------------------------------------
 *
 * slim_index_move.c
 *	  Store rows again so that their prefix shows what the indexes read.
 *
 * A row whose compressed tail holds a value an index reads is read wrongly
 * by heap's code that reads stored rows directly (invariant C1,
 * docs/format.md "Index builds").  Index builds (slim_index_build.c) find
 * such rows; here they are re-laid out in place where their page has room
 * (slim_relayout.c), and the others are stored again: a new row version
 * with the relation's current prefix floor, through slimheap's own
 * tuple_update, and the entries of every index ready for inserts, as an
 * UPDATE of the same values would make them; no trigger fires.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_index_move.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/sysattr.h"
#include "access/tableam.h"
#include "access/table.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/guc.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "slim_compat.h"
#include "slim_heap_slot.h"
#include "slim_index.h"
#include "slim_relayout.h"
#include "slim_tail.h"
#include "slimheap.h"

/*
 * building: an index whose build is under way (its file is not written
 * yet), which the moves must not insert into: the build indexes the rows
 * it finds, the moved ones included.  InvalidOid: none.
 */
SlimMover *
slim_mover_begin(Relation rel, Oid building)
{
	SlimMover  *mv = palloc0(sizeof(SlimMover));
	int			i;

	mv->rel = rel;
	mv->estate = CreateExecutorState();
	mv->result_rel = makeNode(ResultRelInfo);
	InitResultRelInfo(mv->result_rel, rel, 1, NULL, 0);
	ExecOpenIndices(mv->result_rel, false);
	for (i = 0; i < mv->result_rel->ri_NumIndices; i++)
	{
		if (RelationGetRelid(mv->result_rel->ri_IndexRelationDescs[i]) == building)
			mv->result_rel->ri_IndexRelationInfo[i]->ii_ReadyForInserts = false;
	}
	mv->slot = MakeSingleTupleTableSlot(RelationGetDescr(rel),
										slim_get_routine()->slot_callbacks(rel));
	mv->fetched = slim_stored_form_slot(RelationGetDescr(rel));
	mv->attrs = slim_index_attr_bitmap(rel);
	mv->whole_row = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber,
								  mv->attrs);
	return mv;
}

void
slim_mover_end(SlimMover *mv)
{
	ExecCloseIndices(mv->result_rel);
	ExecDropSingleTupleTableSlot(mv->slot);
	ExecDropSingleTupleTableSlot(mv->fetched);
	FreeExecutorState(mv->estate);
	bms_free(mv->attrs);
	pfree(mv);
}

/*
 * A transaction block that uses one snapshot (REPEATABLE READ,
 * SERIALIZABLE) may not move a row its snapshot does not see: the moved
 * version would be the transaction's own, hence visible to it, a row it
 * never saw before.  Such
 * a row was written after the snapshot was taken, so the rule PostgreSQL
 * applies to an UPDATE of it applies: a serialization failure.
 */
void
slim_move_refuse(Relation rel, ItemPointer tid)
{
	ereport(ERROR,
			(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
			 errmsg("could not serialize access due to concurrent update"),
			 errdetail("Building an index of \"%s\" stores row (%u,%u) again with the indexed columns in its prefix, and the row was written after this transaction's snapshot was taken.",
					   RelationGetRelationName(rel),
					   ItemPointerGetBlockNumber(tid),
					   ItemPointerGetOffsetNumber(tid)),
			 errhint("Retry the transaction, or build the index before its first query.")));
}

/* refuse to move the row in slot (a buffer's) unless snapshot sees it */
static void
slim_move_check(Relation rel, Snapshot snapshot, TupleTableSlot *slot)
{
	BufferHeapTupleTableSlot *bslot = (BufferHeapTupleTableSlot *) slot;
	bool		visible;

	LockBuffer(bslot->buffer, BUFFER_LOCK_SHARE);
	visible = HeapTupleSatisfiesVisibility(bslot->base.tuple, snapshot,
										   bslot->buffer);
	LockBuffer(bslot->buffer, BUFFER_LOCK_UNLOCK);
	if (!visible)
		slim_move_refuse(rel, &bslot->base.tuple->t_self);
}

/*
 * Store the row at tid (values, isnull: every attribute) again.  When a
 * concurrent UPDATE got there first (CONCURRENTLY, or another build's
 * move), its version is looked at in turn.
 */
void
slim_move_row(SlimMover *mv, ItemPointer tid, const Datum *values,
			  const bool *isnull)
{
	TupleDesc	desc = RelationGetDescr(mv->rel);
	ItemPointerData otid = *tid;

	for (;;)
	{
		TM_FailureData tmfd;
		LockTupleMode lockmode;
		TM_Result	result;
		Snapshot	snapshot;
		HeapTuple	newer;
		SlimUpdateIndexes update_indexes;

		ExecClearTuple(mv->slot);
		memcpy(mv->slot->tts_values, values, desc->natts * sizeof(Datum));
		memcpy(mv->slot->tts_isnull, isnull, desc->natts * sizeof(bool));
		ExecStoreVirtualTuple(mv->slot);
		/* slimheap's own: a build lends the relation heap's routine */
		result = slim_get_routine()->tuple_update(mv->rel, &otid, mv->slot,
												  GetCurrentCommandId(true),
												  SLIM_NO_UPDATE_OPTIONS
												  GetActiveSnapshot(),
												  mv->crosscheck, true,
												  &tmfd, &lockmode,
												  &update_indexes);
		if (result == TM_Ok)
		{
			mv->moved++;
			slim_progress_moved(1);
			if (SLIM_UPDATE_NEEDS_INDEXES(update_indexes))
				slim_insert_index_tuples(mv->result_rel, mv->slot, mv->estate,
										 SLIM_UPDATE_SUMMARIZING_ONLY(update_indexes));
			ResetPerTupleExprContext(mv->estate);
			return;
		}
		/* a transaction snapshot must see what it moves (slim_move_check()) */
		if (mv->crosscheck != InvalidSnapshot && result == TM_Updated)
			slim_move_refuse(mv->rel, &otid);
		/* deleted, ours already, or moved to another partition */
		if (result != TM_Updated || ItemPointerEquals(&tmfd.ctid, &otid) ||
			ItemPointerIndicatesMovedPartitions(&tmfd.ctid))
			return;

		/* the version that replaced it: does it hide a value too? */
		otid = tmfd.ctid;
		snapshot = RegisterSnapshot(GetLatestSnapshot());
		if (!slim_get_routine()->tuple_fetch_row_version(mv->rel, &otid,
														 snapshot,
														 mv->fetched))
		{
			UnregisterSnapshot(snapshot);
			return;
		}
		UnregisterSnapshot(snapshot);
		newer = ((BufferHeapTupleTableSlot *) mv->fetched)->base.tuple;
		if (!slim_tail_hides(newer->t_data, desc, mv->attrs, mv->whole_row))
			return;
		(void) slim_deform_tuple(newer, desc, mv->fetched->tts_values,
							 mv->fetched->tts_isnull);
		values = mv->fetched->tts_values;
		isnull = mv->fetched->tts_isnull;
	}
}

/*
 * The owner's code, sandboxed, as index_build() runs it: the moves
 * evaluate the expressions of the table's indexes.  Returns the GUC nest
 * level to end it with slim_sandbox_end().
 */
int
slim_sandbox_begin(Relation rel, Oid *save_userid, int *save_sec_context)
{
	int			nestlevel;

	GetUserIdAndSecContext(save_userid, save_sec_context);
	SetUserIdAndSecContext(rel->rd_rel->relowner,
						   *save_sec_context | SECURITY_RESTRICTED_OPERATION);
	nestlevel = NewGUCNestLevel();
#if PG_VERSION_NUM >= 170000
	RestrictSearchPath();
#endif
	return nestlevel;
}

void
slim_sandbox_end(int nestlevel, Oid save_userid, int save_sec_context)
{
	AtEOXact_GUC(false, nestlevel);
	SetUserIdAndSecContext(save_userid, save_sec_context);
}

/*
 * Store the row at tid again, if it is still visible and still hides a
 * value of attrs: an UPDATE of the same values, in this transaction.  A
 * writer that changes the row meanwhile is waited for, and its version
 * looked at in turn (slim_move_row()).
 */
uint64
slim_move_row_at(Relation rel, ItemPointer tid, const Bitmapset *attrs,
				  bool whole_row)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Snapshot	snapshot = RegisterSnapshot(GetLatestSnapshot());
	TupleTableSlot *slot = slim_stored_form_slot(desc);
	SlimMover  *mover;
	HeapTuple	tuple;
	uint64		moved = 0;
	Datum	   *values;
	bool	   *isnull;
	Oid			save_userid;
	int			save_sec_context;
	int			nestlevel;

	if (!slim_get_routine()->tuple_fetch_row_version(rel, tid, snapshot, slot))
	{
		/* deleted or updated since: a newer version obeys R already */
		ExecDropSingleTupleTableSlot(slot);
		UnregisterSnapshot(snapshot);
		return 0;
	}
	tuple = ((BufferHeapTupleTableSlot *) slot)->base.tuple;
	if (slim_tail_hides(tuple->t_data, desc, attrs, whole_row))
	{
		nestlevel = slim_sandbox_begin(rel, &save_userid, &save_sec_context);
		PushActiveSnapshot(snapshot);
		mover = slim_mover_begin(rel, InvalidOid);
		bms_free(mover->attrs);
		mover->attrs = bms_copy(attrs);
		mover->whole_row = whole_row;
		/* the whole row, its tail too: heap's deforming reads the prefix */
		values = palloc(desc->natts * sizeof(Datum));
		isnull = palloc(desc->natts * sizeof(bool));
		(void) slim_deform_tuple(tuple, desc, values, isnull);
		slim_move_row(mover, tid, values, isnull);
		moved = mover->moved;
		slim_mover_end(mover);
		pfree(values);
		pfree(isnull);
		PopActiveSnapshot();
		slim_sandbox_end(nestlevel, save_userid, save_sec_context);
	}
	ExecDropSingleTupleTableSlot(slot);
	UnregisterSnapshot(snapshot);
	return moved;
}

/*
 * Re-lay out in place, or else move, every live row of rel whose prefix
 * hides a value an index reads (under the build's lock: no other writer).  building: the index whose
 * build calls this before its scan, which the table's index list does not
 * show yet, with the attributes it reads (as pull_varattnos offsets them)
 * and the last of them; or InvalidOid at the end of a statement (then the
 * moves are made visible to the next command).
 */
void
slim_move_hidden_rows(Relation rel, Oid building,
					  const Bitmapset *building_attrs, int building_last)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Bitmapset  *attrs = bms_union(slim_index_attr_bitmap(rel), building_attrs);
	bool		whole_row = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber,
										  attrs);
	int			last = Max(slim_index_natts(rel), building_last);
	Snapshot	snapshot;
	Snapshot	xact_snapshot = InvalidSnapshot;
	TableScanDesc scan;
	TupleTableSlot *slot;
	Datum	   *values = palloc(desc->natts * sizeof(Datum));
	bool	   *isnull = palloc(desc->natts * sizeof(bool));
	SlimMover  *mover;
	Oid			save_userid;
	int			save_sec_context;
	int			save_nestlevel;
	uint64		relaid;

	/* in place first: what no row version, lock or decoder shows */
	if (slim_relayout_possible(rel) &&
		slim_relayout_table(rel, attrs, whole_row, last, &relaid))
	{
		bms_free(attrs);
		pfree(values);
		pfree(isnull);
		return;
	}

	/* the owner's code, sandboxed, as index_build() runs it */
	save_nestlevel = slim_sandbox_begin(rel, &save_userid, &save_sec_context);

	/*
	 * Inside a transaction block only: a statement that is its own
	 * transaction took its snapshot before the build's lock, so rows
	 * committed while it waited would fail it, and nothing after it in the
	 * transaction reads the rows (docs/format.md, "Index builds").
	 */
	if (IsolationUsesXactSnapshot() && IsTransactionBlock())
		xact_snapshot = RegisterSnapshot(GetTransactionSnapshot());
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	PushActiveSnapshot(snapshot);
	mover = slim_mover_begin(rel, building);
	mover->crosscheck = xact_snapshot;
	bms_free(mover->attrs);
	mover->attrs = bms_copy(attrs);
	mover->whole_row = whole_row;
	slot = slim_stored_form_slot(desc);
	/* from block 0: builds moving rows of one table meet in one order */
	scan = table_beginscan_strat(rel, snapshot, 0, NULL, true, false);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		HeapTuple	tuple = ((BufferHeapTupleTableSlot *) slot)->base.tuple;

		CHECK_FOR_INTERRUPTS();
		if (HeapTupleHeaderGetNatts(tuple->t_data) >= last ||
			!slim_tail_hides(tuple->t_data, desc, attrs, whole_row))
			continue;
		(void) slim_deform_tuple(tuple, desc, values, isnull);
		if (xact_snapshot != InvalidSnapshot)
			slim_move_check(rel, xact_snapshot, slot);
		slim_move_row(mover, &tuple->t_self, values, isnull);
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	PopActiveSnapshot();
	UnregisterSnapshot(snapshot);
	if (xact_snapshot != InvalidSnapshot)
		UnregisterSnapshot(xact_snapshot);
	slim_mover_end(mover);
	pfree(values);
	pfree(isnull);
	slim_sandbox_end(save_nestlevel, save_userid, save_sec_context);
	if (!OidIsValid(building))
		CommandCounterIncrement();
}


/*
 * Rewrite rel (locked AccessExclusiveLock), as VACUUM FULL does: every row
 * is formed again with the current prefix floor, keeping its visibility,
 * and the indexes are built again.  Cheaper than moving most rows.
 */
void
slim_rewrite_table(Oid relid)
{
	ClusterParams params = {0};

	slim_vacuum_full_rel(relid, &params);
	CommandCounterIncrement();
}
