/*-------------------------------------------------------------------------
 *
 * slim_heap_slot.c
 *	  heap's own slot on a slimheap table: a short row read into it is
 *	  replaced by its full form, and what heap then asks of that copy.
 *
 * The inline test is in slim_heap_slot.h; docs/narrow-slot.md tells why a
 * narrow table's slot is heap's and what that costs.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_heap_slot.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "storage/bufmgr.h"
#include "storage/proc.h"
#include "utils/rel.h"

#include "slim_compat.h"
#include "slim_heap_slot.h"
#include "slim_tail.h"
#include "slimheap.h"

/* the infomask bits that say how a row is formed, not what became of it */
#define SLIM_FORM_INFOMASK	(HEAP_HASNULL | HEAP_HASVARWIDTH | HEAP_HASEXTERNAL)

/*
 * Give full, formed from stored's values, stored's header: its
 * transaction fields and ctid, the hint and lock bits, HOT's bits.  What
 * the executor reads of a stored row besides its values (system columns,
 * EvalPlanQual's ctid, the visibility heap tests) is all there.
 */
static void
slim_keep_stored_header(HeapTuple full, HeapTuple stored)
{
	HeapTupleHeader td = full->t_data;
	HeapTupleHeader src = stored->t_data;

	memcpy(td, src, offsetof(HeapTupleHeaderData, t_infomask2));
	td->t_infomask2 = (td->t_infomask2 & HEAP_NATTS_MASK) |
		(src->t_infomask2 & HEAP2_XACT_MASK);
	td->t_infomask = (td->t_infomask & SLIM_FORM_INFOMASK) |
		(src->t_infomask & ~SLIM_FORM_INFOMASK);
	full->t_self = stored->t_self;
	full->t_tableOid = stored->t_tableOid;
}

/*
 * The relations whose rows this backend found short in heap's slot, and
 * the transaction that found them (its local ID).  From the next
 * transaction on their slots are slimheap's again (slim_slot_ops()), which
 * copy a short row only when a copy is asked for; not within the
 * transaction itself, where one executor's run can go on across
 * statements (a cursor's FETCHes, a portal's Execute messages) and make
 * more slots for its plan (EvalPlanQual's): an expression compiled for
 * one slot type must not meet the other.  For the same reason nothing is
 * ever taken off the list: once it is full, later relations stay on
 * heap's slot and have their short rows widened as they are read.
 */
#define SLIM_SHORT_ROWS_SEEN	64

static struct
{
	Oid			relid;
	LocalTransactionId found;
}			slim_short_rows_seen[SLIM_SHORT_ROWS_SEEN];
int			slim_short_rows_count = 0;

static int
slim_short_rows_entry(Oid relid)
{
	int			i;

	for (i = 0; i < slim_short_rows_count; i++)
	{
		if (slim_short_rows_seen[i].relid == relid)
			return i;
	}
	return -1;
}

static void
slim_note_short_rows(Oid relid)
{
	if (!OidIsValid(relid) || MyProc == NULL ||
		slim_short_rows_count == SLIM_SHORT_ROWS_SEEN ||
		slim_short_rows_entry(relid) >= 0)
		return;
	slim_short_rows_seen[slim_short_rows_count].relid = relid;
	slim_short_rows_seen[slim_short_rows_count].found =
		slim_proc_lxid(MyProc);
	slim_short_rows_count++;
}

/* slim_heap_slot_short_rows() once the list has entries */
bool
slim_heap_slot_short_rows_listed(Oid relid)
{
	int			i = slim_short_rows_entry(relid);

	return i >= 0 && MyProc != NULL &&
		slim_short_rows_seen[i].found != slim_proc_lxid(MyProc);
}

/*
 * The row heap stored in slot is short of its descriptor or has a tail:
 * replace it by its full form, which the slot owns (the buffer pin goes).
 * Read through slimheap's reader, so a tail's values and the fast
 * defaults past the row's natts are what every other read gives.
 */
void
slim_heap_slot_widen(TupleTableSlot *slot)
{
	BufferHeapTupleTableSlot *bslot = (BufferHeapTupleTableSlot *) slot;
	HeapTuple	stored = bslot->base.tuple;
	TupleDesc	desc = slot->tts_tupleDescriptor;
	Oid			tableoid = slot->tts_tableOid;
	MemoryContext oldcxt;
	HeapTuple	full;

	if ((slot->tts_flags & SLIM_TTS_FLAG_STORED_FORM) != 0 ||
		(!SlimHeaderHasTail(stored->t_data) &&
		 HeapTupleHeaderGetNatts(stored->t_data) >= desc->natts))
		return;
	slim_note_short_rows(tableoid);

	(void) slim_deform_tuple(stored, desc, slot->tts_values, slot->tts_isnull);
	oldcxt = MemoryContextSwitchTo(slot->tts_mcxt);
	full = heap_form_tuple(desc, slot->tts_values, slot->tts_isnull);
	MemoryContextSwitchTo(oldcxt);
	slim_keep_stored_header(full, stored);

	ExecClearTuple(slot);
	bslot->base.tuple = full;
	slot->tts_flags &= ~TTS_FLAG_EMPTY;
	slot->tts_flags |= TTS_FLAG_SHOULDFREE;
	slot->tts_tid = full->t_self;
	slot->tts_tableOid = tableoid;
}

/* slim_heap_slot_widen(), true: for slim_heap_slot_checked() */
bool
slim_heap_slot_widened(TupleTableSlot *slot)
{
	slim_heap_slot_widen(slot);
	return true;
}

/*
 * tuple_satisfies_snapshot for a buffer-heap slot: heap's needs the slot's
 * buffer, and a widened row has none.  heap tests the row on its page (the
 * slot's tuple points there), so this tests the row at the copy's address,
 * if it is still the same row (its xmin), with heap's own test.
 */
bool
slim_heap_slot_satisfies(Relation rel, TupleTableSlot *slot,
						 Snapshot snapshot)
{
	BufferHeapTupleTableSlot *bslot = (BufferHeapTupleTableSlot *) slot;
	HeapTuple	copy = bslot->base.tuple;
	Buffer		buffer;
	HeapTupleData tuple;
	bool		visible = false;

	if (BufferIsValid(bslot->buffer) || copy == NULL)
		return slim_heap_routine->tuple_satisfies_snapshot(rel, slot, snapshot);

	if (slim_row_on_page(rel, &copy->t_self, &buffer, &tuple))
		visible = HeapTupleHeaderGetRawXmin(tuple.t_data) ==
			HeapTupleHeaderGetRawXmin(copy->t_data) &&
			HeapTupleSatisfiesVisibility(&tuple, snapshot, buffer);
	UnlockReleaseBuffer(buffer);
	return visible;
}

/*
 * The row at tid as stored on its page, into *tuple: false when the line
 * pointer holds no row.  Either way *buffer is left pinned and share-locked
 * for the caller to read and then release (UnlockReleaseBuffer()).
 */
bool
slim_row_on_page(Relation rel, ItemPointer tid, Buffer *buffer,
				 HeapTuple tuple)
{
	Page		page;
	ItemId		lp;

	*buffer = ReadBuffer(rel, ItemPointerGetBlockNumber(tid));
	LockBuffer(*buffer, BUFFER_LOCK_SHARE);
	page = BufferGetPage(*buffer);
	if (ItemPointerGetOffsetNumber(tid) > PageGetMaxOffsetNumber(page))
		return false;
	lp = PageGetItemId(page, ItemPointerGetOffsetNumber(tid));
	if (!ItemIdIsNormal(lp))
		return false;
	tuple->t_data = (HeapTupleHeader) PageGetItem(page, lp);
	tuple->t_len = ItemIdGetLength(lp);
	tuple->t_self = *tid;
	tuple->t_tableOid = RelationGetRelid(rel);
	return true;
}

/* a buffer-heap slot whose rows the read callbacks leave as stored */
TupleTableSlot *
slim_stored_form_slot(TupleDesc desc)
{
	TupleTableSlot *slot = MakeSingleTupleTableSlot(desc,
													&TTSOpsBufferHeapTuple);

	slot->tts_flags |= SLIM_TTS_FLAG_STORED_FORM;
	return slot;
}
