/*-------------------------------------------------------------------------
 *
 * slim_am_write.c
 *	  slimheap's write callbacks: insert, speculative insert, multi-insert
 *	  and update store rows in slimheap's form through heap's own code.
 *
 * The executor hands these callbacks a slimheap slot (table_slot_create()),
 * which has usually formed the row already, in the slot's form, when the
 * row was copied or materialized into it.  What is left here is to make sure
 * the row honours what only the relation knows (its current mode, and for a
 * table being rewritten the old table's fast defaults) and to give heap a
 * tuple it may write the header of.  Other slots (CREATE TABLE AS, REFRESH
 * MATERIALIZED VIEW) have their row formed from values.  A narrow table's
 * slots are heap's (slim_slot_ops()), and its rows go to heap's own
 * callbacks.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_am_write.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "access/xlog.h"
#include "catalog/catalog.h"
#include "catalog/pg_class.h"
#include "executor/tuptable.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"

#include "slim_am.h"
#include "slim_compat.h"
#include "slim_heap_slot.h"
#include "slim_slot.h"
#include "slim_tail.h"
#include "slim_wal.h"
#include "slimheap.h"

/*
 * The tuple to hand to heap for the row in slot, formed as info says.  When
 * *in_slot is false the tuple is ours to free once heap is done with it.
 */
static inline HeapTuple
slim_prepare_row_with(Relation rel, const SlimRelInfo *info,
					  TupleTableSlot *slot, bool *in_slot)
{
	*in_slot = TTS_IS_SLIMHEAP(slot);
	if (likely(*in_slot))
		return slim_slot_fitted(slot, info);

	slot_getallattrs(slot);
	slim_rows_formed++;
	return slim_form_tuple(slot->tts_tupleDescriptor, slot->tts_values,
						   slot->tts_isnull, info->options.null_bitmap,
						   info->missing_floor,
						   slim_floor_row(info->prefix_floor, slot->tts_isnull,
										  info->missing_floor));
}

/* rel's facts with every attribute in the prefix (no tail), in *local */
static inline const SlimRelInfo *
slim_info_without_tail(Relation rel, SlimRelInfo *local)
{
	*local = *slim_get_relinfo(rel);
	local->prefix_floor = local->no_tail_floor;
	return local;
}

/*
 * The row in slot formed as info says, but with no tail: for a write that
 * heap will log for logical decoding, or whose old row the toaster reads.
 * tuple: the form made before, freed here unless it is the slot's.
 */
static HeapTuple
slim_prepare_row_without_tail(Relation rel, TupleTableSlot *slot,
							  HeapTuple tuple, bool *in_slot)
{
	SlimRelInfo no_tail;

	if (!*in_slot)
		heap_freetuple(tuple);
	return slim_prepare_row_with(rel, slim_info_without_tail(rel, &no_tail),
								 slot, in_slot);
}

/*
 * Invariant C3, decided per write: logical decoding reads the rows heap
 * logs as heap rows, so a tail row heap would log for decoding is either
 * logged by slimheap's own record too (an insert, when slimheap's WAL
 * resource manager is registered: *logged is set, and the caller inserts
 * with HEAP_INSERT_NO_LOGICAL and calls slim_wal_log_insert()), or formed
 * without its tail (an update, whose new row heap logs for decoding;
 * logged is NULL).  An insert whose caller passed HEAP_INSERT_NO_LOGICAL
 * itself (undecoded: unlogged is true) keeps its tail and needs no record.
 * From PostgreSQL 19 on decoding can switch on at any time (a logical
 * slot is created under wal_level = replica), and a process takes the
 * change only while it has no transaction ID: once the
 * transaction has one, what heap will log for this row is fixed, so the
 * question is asked after assigning it (heap's insert and update would
 * assign it anyway).  Rows without a tail, nearly every row of a table
 * that is not in compress mode, cost one test.
 */
static inline HeapTuple
slim_confirm_row(Relation rel, TupleTableSlot *slot, HeapTuple tuple,
				 bool *in_slot, bool *logged, bool unlogged)
{
	if (logged != NULL)
		*logged = false;
	if (likely(!SlimHeaderHasTail(tuple->t_data)) || unlogged)
		return tuple;
	(void) GetCurrentTransactionId();
	if (!RelationIsLogicallyLogged(rel))
		return tuple;
	if (logged != NULL && slim_wal_registered())
	{
		*logged = true;
		return tuple;
	}
	return slim_prepare_row_without_tail(rel, slot, tuple, in_slot);
}

/* the row of a slot that is not slimheap's, formed for rel (*in_slot false) */
static pg_noinline HeapTuple
slim_prepare_other_slot(Relation rel, TupleTableSlot *slot, bool *in_slot)
{
	return slim_prepare_row_with(rel, slim_get_relinfo(rel), slot, in_slot);
}

/*
 * The tuple to hand to heap for a write of the row in slot to rel, C3
 * decided.  Always inlined, so that the common case (a slimheap slot whose
 * row is formed as the relation wants, without a tail) costs its writer no
 * call: 36 instructions a row of a narrow table
 * (bench/results/instructions-profile.md, W2).
 */
static pg_attribute_always_inline HeapTuple
slim_prepare_row(Relation rel, TupleTableSlot *slot, bool *in_slot,
				 bool *logged, bool unlogged)
{
	HeapTuple	tuple;

	*in_slot = true;
	if (likely(TTS_IS_SLIMHEAP(slot)))
		tuple = slim_slot_fitted(slot, slim_get_relinfo(rel));
	else
		tuple = slim_prepare_other_slot(rel, slot, in_slot);
	if (logged != NULL)
		*logged = false;
	if (likely(!SlimHeaderHasTail(tuple->t_data)))
		return tuple;
	return slim_confirm_row(rel, slot, tuple, in_slot, logged, unlogged);
}

/*
 * Whether the row at tid is a tail row, and (*external) whether it has
 * external values; false when there is no row there (heap then reports
 * what it finds).
 */
static bool
slim_old_row_tail(Relation rel, ItemPointer tid, bool *external)
{
	Buffer		buffer;
	HeapTupleData old;
	bool		tail = false;

	*external = false;
	if (slim_row_on_page(rel, tid, &buffer, &old))
	{
		tail = SlimHeaderHasTail(old.t_data);
		*external = (old.t_data->t_infomask & HEAP_HASEXTERNAL) != 0;
	}
	UnlockReleaseBuffer(buffer);
	return tail;
}

/*
 * Invariant C3: under logical WAL, heap logs the old row of a REPLICA
 * IDENTITY FULL table whole, and logical decoding would read a tail row's
 * prefix only.  Refuse rather than send subscribers a row they misread.
 * The ALTER that sets the identity re-lays such rows (slim_identity.c), so
 * only a table that got it where slimheap's hook did not run (an older
 * slimheap, event triggers off in a session that loaded the library
 * during the ALTER) can get here.
 */
static pg_noinline void
slim_guard_old_tail_full(Relation rel, ItemPointer tid)
{
	bool		external;

	if (!RelationIsLogicallyLogged(rel))
		return;
	if (slim_old_row_tail(rel, tid, &external))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot update or delete a row with a compressed tail in table \"%s\" while " SLIM_LOGICAL_WAL_PHRASE,
						RelationGetRelationName(rel)),
				 errdetail("REPLICA IDENTITY FULL logs the old row whole, and logical decoding reads it as a heap row."),
				 errhint("Run ALTER TABLE %s REPLICA IDENTITY FULL again with slimheap loaded: it re-lays the table's rows without tails.",
						 RelationGetRelationName(rel))));
}

/* the guard, inline: most tables are not REPLICA IDENTITY FULL */
static inline void
slim_guard_old_tail(Relation rel, ItemPointer tid)
{
	if (unlikely(rel->rd_rel->relreplident == REPLICA_IDENTITY_FULL))
		slim_guard_old_tail_full(rel, tid);
}

/*
 * INSERT and the insert of INSERT ... ON CONFLICT (speculative).  After
 * heap_insert() a slimheap slot holds the very tuple heap wrote, whose
 * header answers RETURNING's system columns.  Any row: a slot of another
 * type, a row with a tail (C3).
 */
static pg_noinline void
slim_insert_any_row(Relation rel, TupleTableSlot *slot, CommandId cid,
					SlimInsertOptions options, BulkInsertState bistate,
					bool speculative, uint32 specToken)
{
	bool		in_slot;
	bool		logged;
	HeapTuple	tuple = slim_prepare_row(rel, slot, &in_slot, &logged,
										 (options & HEAP_INSERT_NO_LOGICAL) != 0);

	slot->tts_tableOid = RelationGetRelid(rel);
	tuple->t_tableOid = slot->tts_tableOid;
	if (speculative)
	{
		HeapTupleHeaderSetSpeculativeToken(tuple->t_data, specToken);
		options |= HEAP_INSERT_SPECULATIVE;
	}
	if (logged)
		options |= HEAP_INSERT_NO_LOGICAL;

	slim_extend_as_needed(bistate);
	heap_insert(rel, tuple, cid, options, bistate);
	if (logged)
		slim_wal_log_insert(rel, tuple, speculative);
	ItemPointerCopy(&tuple->t_self, &slot->tts_tid);

	if (!in_slot)
		heap_freetuple(tuple);
}

/*
 * A slot that is not slimheap's.  A narrow table's rows are heap's
 * (SlimRelInfo.narrow), and its slots are heap's too: heap's own insert,
 * which forms the row from the slot.  A short stored row is formed again
 * from its values, as slimheap's slot would: every row a narrow table
 * stores has all its attributes, whichever slot brought it.  Other
 * tables' rows are formed in their mode.
 */
static pg_noinline void
slim_insert_other_slot(Relation rel, TupleTableSlot *slot, CommandId cid,
					   SlimInsertOptions options, BulkInsertState bistate)
{
	if (likely(slim_get_relinfo(rel)->narrow) &&
		likely(!slim_slot_holds_short_row(rel, slot)))
	{
		slim_heap_routine->tuple_insert(rel, slot, cid, options, bistate);
		return;
	}
	slim_insert_any_row(rel, slot, cid, options, bistate, false, 0);
}

/*
 * The usual insert, inline: a slimheap slot whose row is formed as rel
 * wants it, without a tail, goes to heap_insert() as it is; the rest is
 * slim_insert_any_row()'s (which takes the addresses of its flags, so it
 * keeps its stack frame and the stack protector's check to itself).
 */
static pg_attribute_always_inline void
slim_insert_row(Relation rel, TupleTableSlot *slot, CommandId cid,
				SlimInsertOptions options, BulkInsertState bistate,
				bool speculative, uint32 specToken)
{
	HeapTuple	tuple;

	if (unlikely(speculative || !TTS_IS_SLIMHEAP(slot)))
	{
		slim_insert_any_row(rel, slot, cid, options, bistate, speculative,
							specToken);
		return;
	}
	tuple = slim_slot_fitted(slot, slim_get_relinfo(rel));
	if (unlikely(SlimHeaderHasTail(tuple->t_data)))
	{
		slim_insert_any_row(rel, slot, cid, options, bistate, false, 0);
		return;
	}
	slot->tts_tableOid = RelationGetRelid(rel);
	tuple->t_tableOid = slot->tts_tableOid;
	slim_extend_as_needed(bistate);
	heap_insert(rel, tuple, cid, options, bistate);
	ItemPointerCopy(&tuple->t_self, &slot->tts_tid);
}

/* a slimheap slot's row */
static pg_noinline void
slim_insert_slimheap_row(Relation rel, TupleTableSlot *slot, CommandId cid,
						 SlimInsertOptions options, BulkInsertState bistate)
{
	slim_insert_row(rel, slot, cid, options, bistate, false, 0);
}

/* a row to form from its values (slim_insert_any_row()), not speculative */
static pg_noinline void
slim_insert_formed(Relation rel, TupleTableSlot *slot, CommandId cid,
				   SlimInsertOptions options, BulkInsertState bistate)
{
	slim_insert_any_row(rel, slot, cid, options, bistate, false, 0);
}

/*
 * heap's buffer-heap slot into a narrow table (the slot its executor
 * made, or a scan's passed on): heap's insert, unless the slot holds a
 * short stored row (slim_insert_other_slot())
 */
static pg_noinline void
slim_insert_heap_slot(Relation rel, TupleTableSlot *slot, CommandId cid,
					  SlimInsertOptions options, BulkInsertState bistate)
{
	HeapTuple	tuple = ((BufferHeapTupleTableSlot *) slot)->base.tuple;

	if (likely(tuple == NULL) ||
		likely(slim_header_is_full(tuple->t_data, RelationGetDescr(rel)->natts)))
		slim_heap_routine->tuple_insert(rel, slot, cid, options, bistate);
	else
		slim_insert_formed(rel, slot, cid, options, bistate);
}

/*
 * Only the slot's type here: each kind of slot has a function of its own,
 * so that a narrow table's insert (heap's slot) pays for no register the
 * slimheap slot's path keeps.  A table is narrow by its descriptor alone
 * (SlimRelInfo.narrow).
 */
void
slim_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
				  SlimInsertOptions options, BulkInsertState bistate)
{
	if (slot->tts_ops == &TTSOpsBufferHeapTuple &&
		RelationGetDescr(rel)->natts <= SLIM_NARROW_NATTS)
		slim_insert_heap_slot(rel, slot, cid, options, bistate);
	else if (unlikely(!TTS_IS_SLIMHEAP(slot)))
		slim_insert_other_slot(rel, slot, cid, options, bistate);
	else
		slim_insert_slimheap_row(rel, slot, cid, options, bistate);
}

void
slim_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
							  CommandId cid, SlimInsertOptions options,
							  BulkInsertState bistate, uint32 specToken)
{
	if (!TTS_IS_SLIMHEAP(slot) && slim_get_relinfo(rel)->narrow &&
		!slim_slot_holds_short_row(rel, slot))
		slim_heap_routine->tuple_insert_speculative(rel, slot, cid, options,
													bistate, specToken);
	else
		slim_insert_row(rel, slot, cid, options, bistate, true, specToken);
}

/*
 * Whether heap's multi-insert may take the batch of a narrow table as it
 * is: no slot is slimheap's, none holds a short row
 */
static bool
slim_batch_is_heaps(Relation rel, TupleTableSlot **slots, int ntuples)
{
	int			i;

	for (i = 0; i < ntuples; i++)
	{
		if (TTS_IS_SLIMHEAP(slots[i]) ||
			slim_slot_holds_short_row(rel, slots[i]))
			return false;
	}
	return true;
}

/*
 * COPY and batched inserts.  heap_multi_insert() takes the tuple each slot
 * lends (ExecFetchSlotHeapTuple), so fit every slot's row first and have it
 * lend that form (an error in between leaves the flag set only until the
 * slot's next row).  Batches of other slots go in one row at a time.
 */
void
slim_multi_insert(Relation rel, TupleTableSlot **slots, int ntuples,
				  CommandId cid, SlimInsertOptions options,
				  BulkInsertState bistate)
{
	const SlimRelInfo *info = slim_get_relinfo(rel);
	SlimRelInfo no_tail;
	bool		tails = false;
	int			i;

	if (info->narrow && slim_batch_is_heaps(rel, slots, ntuples))
	{
		slim_heap_routine->multi_insert(rel, slots, ntuples, cid, options,
										bistate);
		return;
	}
	for (i = 0; i < ntuples; i++)
	{
		if (!TTS_IS_SLIMHEAP(slots[i]))
		{
			for (i = 0; i < ntuples; i++)
				slim_tuple_insert(rel, slots[i], cid, options, bistate);
			return;
		}
	}

	for (i = 0; i < ntuples; i++)
		tails |= SlimHeaderHasTail(slim_slot_fitted(slots[i], info)->t_data);
	/* C3 per write (slim_confirm_row()), once for the batch */
	if (unlikely(tails) && !(options & HEAP_INSERT_NO_LOGICAL))
	{
		(void) GetCurrentTransactionId();
		if (RelationIsLogicallyLogged(rel) && slim_wal_registered())
		{
			/* heap_multi_insert() cannot leave a row out of decoding */
			for (i = 0; i < ntuples; i++)
				slim_tuple_insert(rel, slots[i], cid, options, bistate);
			return;
		}
		if (RelationIsLogicallyLogged(rel))
		{
			info = slim_info_without_tail(rel, &no_tail);
			for (i = 0; i < ntuples; i++)
				(void) slim_slot_fitted(slots[i], info);
		}
	}
	for (i = 0; i < ntuples; i++)
		slim_slot_lend_stored(slots[i], true);
	slim_extend_as_needed(bistate);
	heap_multi_insert(rel, slots, ntuples, cid, options, bistate);
	for (i = 0; i < ntuples; i++)
		slim_slot_lend_stored(slots[i], false);
}

/* any update: a slot of another type, a row with a tail (C2, C3) */
static pg_noinline TM_Result
slim_update_any_row(Relation rel, ItemPointer otid, TupleTableSlot *slot,
					CommandId cid, SLIM_UPDATE_OPTIONS_PARAM Snapshot snapshot,
					Snapshot crosscheck, bool wait, TM_FailureData *tmfd,
					LockTupleMode *lockmode, SlimUpdateIndexes *update_indexes)
{
	bool		in_slot;
	HeapTuple	tuple = slim_prepare_row(rel, slot, &in_slot, NULL, false);
	TM_Result	result;
	bool		old_external;

	slim_guard_old_tail(rel, otid);

	/*
	 * heap_update() runs the toaster when the old row has external values,
	 * and the toaster would deform the new row as a heap row: a tail there
	 * would be lost (invariant C2), so the new row gets no tail.
	 */
	if (SlimHeaderHasTail(tuple->t_data))
		(void) slim_old_row_tail(rel, otid, &old_external);
	else
		old_external = false;
	if (old_external)
		tuple = slim_prepare_row_without_tail(rel, slot, tuple, &in_slot);

	slot->tts_tableOid = RelationGetRelid(rel);
	tuple->t_tableOid = slot->tts_tableOid;

	result = slim_heap_update(rel, otid, tuple, cid,
							  SLIM_UPDATE_OPTIONS_VALUE, crosscheck, wait,
							  tmfd, lockmode, update_indexes);
	ItemPointerCopy(&tuple->t_self, &slot->tts_tid);

	if (!in_slot)
		heap_freetuple(tuple);
	return result;
}

/*
 * A slot that is not slimheap's: a narrow table's rows and slots are
 * heap's, so heap's own update, unless the slot holds a short stored row
 * (slim_insert_other_slot()); other tables' rows are formed in their mode.
 */
static pg_noinline TM_Result
slim_update_other_slot(Relation rel, ItemPointer otid, TupleTableSlot *slot,
					   CommandId cid, SLIM_UPDATE_OPTIONS_PARAM Snapshot snapshot,
					   Snapshot crosscheck, bool wait, TM_FailureData *tmfd,
					   LockTupleMode *lockmode,
					   SlimUpdateIndexes *update_indexes)
{
	if (likely(slim_get_relinfo(rel)->narrow) &&
		likely(!slim_slot_holds_short_row(rel, slot)))
	{
		slim_guard_old_tail(rel, otid);
		return slim_heap_routine->tuple_update(rel, otid, slot, cid,
											   SLIM_UPDATE_OPTIONS_ARG snapshot,
											   crosscheck, wait, tmfd,
											   lockmode, update_indexes);
	}
	return slim_update_any_row(rel, otid, slot, cid,
							   SLIM_UPDATE_OPTIONS_ARG snapshot, crosscheck,
							   wait, tmfd, lockmode, update_indexes);
}

/*
 * A slimheap slot's row.  As for inserts, the usual row (formed as rel
 * wants it, without a tail) goes to heap as it is.
 */
static pg_noinline TM_Result
slim_update_slimheap_row(Relation rel, ItemPointer otid, TupleTableSlot *slot,
						 CommandId cid, SLIM_UPDATE_OPTIONS_PARAM Snapshot snapshot,
						 Snapshot crosscheck, bool wait, TM_FailureData *tmfd,
						 LockTupleMode *lockmode,
						 SlimUpdateIndexes *update_indexes)
{
	HeapTuple	tuple = slim_slot_fitted(slot, slim_get_relinfo(rel));
	TM_Result	result;

	if (likely(!SlimHeaderHasTail(tuple->t_data)))
	{
		slim_guard_old_tail(rel, otid);
		slot->tts_tableOid = RelationGetRelid(rel);
		tuple->t_tableOid = slot->tts_tableOid;
		result = slim_heap_update(rel, otid, tuple, cid,
								  SLIM_UPDATE_OPTIONS_VALUE, crosscheck,
								  wait, tmfd, lockmode, update_indexes);
		ItemPointerCopy(&tuple->t_self, &slot->tts_tid);
		return result;
	}
	return slim_update_any_row(rel, otid, slot, cid,
							   SLIM_UPDATE_OPTIONS_ARG snapshot, crosscheck,
							   wait, tmfd, lockmode, update_indexes);
}

/* UPDATE: only the slot's type here, as for inserts */
TM_Result
slim_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
				  CommandId cid, SLIM_UPDATE_OPTIONS_PARAM Snapshot snapshot,
				  Snapshot crosscheck, bool wait, TM_FailureData *tmfd,
				  LockTupleMode *lockmode, SlimUpdateIndexes *update_indexes)
{
	if (unlikely(!TTS_IS_SLIMHEAP(slot)))
		return slim_update_other_slot(rel, otid, slot, cid,
									  SLIM_UPDATE_OPTIONS_ARG snapshot,
									  crosscheck, wait, tmfd, lockmode,
									  update_indexes);
	return slim_update_slimheap_row(rel, otid, slot, cid,
									SLIM_UPDATE_OPTIONS_ARG snapshot,
									crosscheck, wait, tmfd, lockmode,
									update_indexes);
}

/* heap's delete, after the C3 guard */
TM_Result
slim_tuple_delete(Relation rel, ItemPointer tid, CommandId cid,
				  SLIM_DELETE_OPTIONS_PARAM Snapshot snapshot,
				  Snapshot crosscheck, bool wait,
				  TM_FailureData *tmfd SLIM_DELETE_PART_PARAM)
{
	slim_guard_old_tail(rel, tid);
	return slim_heap_routine->tuple_delete(rel, tid, cid,
										   SLIM_DELETE_OPTIONS_ARG snapshot,
										   crosscheck, wait,
										   tmfd SLIM_DELETE_PART_ARG);
}
