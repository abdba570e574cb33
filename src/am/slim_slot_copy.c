/*-------------------------------------------------------------------------
 *
 * slim_slot_copy.c
 *	  The tuples that leave a slimheap slot: copies and the tuple it lends,
 *	  always in heap's full form (invariant E1).
 *
 * A stored slimheap row may leave out trailing NULL attributes or keep a
 * compressed tail; it reads right only in its own table.  Sorts, hashes,
 * tuple stores, Gather queues, other tables' inserts and triggers get every
 * attribute (docs/slot.md).  The rest of the slot is slim_slot.c.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_slot_copy.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "executor/tuptable.h"

#include "slim_compat.h"
#include "slim_slot.h"
#include "slim_tail.h"
#include "slimheap.h"

/*
 * The tuple the slot lends: heap_insert() of another table (CREATE TABLE
 * AS, REFRESH MATERIALIZED VIEW) stores it, and triggers read it, so it is
 * in the full form too; a short row gets a full copy the slot keeps.  Only
 * slimheap's own multi-insert borrows the stored form (lend_stored).
 */
HeapTuple
slim_slot_get_heap_tuple(TupleTableSlot *slot)
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;
	HeapTuple	tuple;

	Assert(!TTS_EMPTY(slot));
	if (SLIM_TUPLE(sslot) == NULL)
		slot->tts_ops->materialize(slot);
	tuple = SLIM_TUPLE(sslot);
	if (sslot->lend_stored ||
		HeapTupleHeaderGetNatts(tuple->t_data) >=
		slot->tts_tupleDescriptor->natts)
		return tuple;

	if (sslot->handed_out == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(slot->tts_mcxt);

		sslot->handed_out = slot->tts_ops->copy_heap_tuple(slot);
		sslot->handed_out->t_self = tuple->t_self;
		sslot->handed_out->t_tableOid = tuple->t_tableOid;
		slot->tts_flags |= SLIM_TTS_FLAG_HANDED_OUT;
		MemoryContextSwitchTo(oldcxt);
	}
	return sslot->handed_out;
}

/*
 * Copies leave with every attribute (E1).  A tail row's full form is made
 * from its bytes; a row stored before a fast default was added reads that
 * default past its natts, which only its values tell, so it is formed from
 * them.  Either keeps the row's address as heap_copytuple() does (ANALYZE
 * sorts its sample by it).
 */
HeapTuple
slim_slot_copy_heap_tuple(TupleTableSlot *slot)
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;
	TupleDesc	desc = slot->tts_tupleDescriptor;
	HeapTuple	tuple = slim_slot_plain_tuple(slot);
	HeapTuple	stored = SLIM_TUPLE(sslot);
	HeapTuple	copy;

	Assert(!TTS_EMPTY(slot));
	if (tuple != NULL)
		return slim_expand_tuple(tuple, desc);
	if (stored != NULL && SlimHeaderHasTail(stored->t_data))
	{
		copy = slim_tail_expand_tuple(stored, desc, slim_slot_att_info(sslot));
		if (copy != NULL)
			return copy;
	}

	slot_getallattrs(slot);
	copy = heap_form_tuple(desc, slot->tts_values, slot->tts_isnull);
	if (stored != NULL)
	{
		copy->t_self = stored->t_self;
		copy->t_tableOid = stored->t_tableOid;
	}
	else
	{
		copy->t_self = slot->tts_tid;
		copy->t_tableOid = slot->tts_tableOid;
	}
	return copy;
}

/* extra (18+): zeroed room the caller wants in front of the tuple */
#if PG_VERSION_NUM >= 180000
MinimalTuple
slim_slot_copy_minimal_tuple(TupleTableSlot *slot, Size extra)
#else
MinimalTuple
slim_slot_copy_minimal_tuple(TupleTableSlot *slot)
#endif
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;
	TupleDesc	desc = slot->tts_tupleDescriptor;
	HeapTuple	tuple = slim_slot_plain_tuple(slot);
	HeapTuple	stored = SLIM_TUPLE(sslot);
	MinimalTuple copy;
#if PG_VERSION_NUM < 180000
	Size		extra = 0;
#endif

	Assert(!TTS_EMPTY(slot));
	if (tuple != NULL)
		return slim_expand_minimal_tuple(tuple, desc, extra);
	if (stored != NULL && SlimHeaderHasTail(stored->t_data))
	{
		copy = slim_tail_expand_minimal_tuple(stored, desc,
											  slim_slot_att_info(sslot), extra);
		if (copy != NULL)
			return copy;
	}
	slot_getallattrs(slot);
	return slim_heap_form_minimal_tuple(desc, slot->tts_values,
										slot->tts_isnull, extra);
}
