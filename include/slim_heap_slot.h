/*-------------------------------------------------------------------------
 *
 * slim_heap_slot.h
 *	  heap's own slot on a slimheap table: every row the read callbacks
 *	  store in it has every attribute of its descriptor.
 *
 * A narrow table (SLIM_NARROW_NATTS) gets heap's buffer-heap slot
 * (slim_slot_ops()), so that its rows cost what heap's cost.  heap's slot
 * copies a row as it is stored, and a short row copied into a table with
 * fast defaults would read them (invariant E1): so after heap's read
 * callback the row's natts is compared with the descriptor's, and a
 * shorter row, or one with a tail, is replaced in the slot by its full
 * form.  The test is inline and costs a few instructions a row; the
 * replacement is rare (docs/narrow-slot.md).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_heap_slot.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_HEAP_SLOT_H
#define SLIM_HEAP_SLOT_H

#include "access/htup_details.h"
#include "executor/tuptable.h"
#include "storage/buf.h"
#include "utils/rel.h"
#include "utils/snapshot.h"

#include "slim_compat.h"
#include "slim_tail.h"

/*
 * A flag of slimheap's own buffer-heap slots that must see rows as they are
 * stored (CLUSTER's copy, CIC's moves, the index build): the read
 * callbacks leave their rows alone.  Above PostgreSQL's flags (bits 1-4
 * on 15 to 19) and below SLIM_TTS_FLAG_HANDED_OUT.
 */
#define SLIM_TTS_FLAG_STORED_FORM	(1 << 14)
StaticAssertDecl((SLIM_TTS_FLAG_STORED_FORM &
				  (TTS_FLAG_EMPTY | TTS_FLAG_SHOULDFREE | TTS_FLAG_FIXED)) == 0,
				 "SLIM_TTS_FLAG_STORED_FORM collides with a flag of PostgreSQL's");

extern void slim_heap_slot_widen(TupleTableSlot *slot);
extern bool slim_heap_slot_widened(TupleTableSlot *slot);
extern bool slim_heap_slot_satisfies(Relation rel, TupleTableSlot *slot,
									 Snapshot snapshot);
extern TupleTableSlot *slim_stored_form_slot(TupleDesc desc);
extern bool slim_heap_slot_short_rows_listed(Oid relid);

/* how many relations the short-rows list holds (slim_heap_slot.c) */
extern SLIM_HIDDEN int slim_short_rows_count;

/*
 * Whether relid's slots are to be slimheap's: this backend found short
 * rows in it, in an earlier statement (slim_heap_slot.c).  Inline: a
 * narrow table's every slot asks, and the list is nearly always empty.
 */
static inline bool
slim_heap_slot_short_rows(Oid relid)
{
	if (likely(slim_short_rows_count == 0))
		return false;
	return slim_heap_slot_short_rows_listed(relid);
}

/*
 * Whether a stored row has all natts attributes of its descriptor and no
 * tail: one comparison covers natts and the tail flag (SLIM_HEAP_TAIL is
 * the bit above HEAP_NATTS_MASK)
 */
static inline bool
slim_header_is_full(HeapTupleHeader td, int natts)
{
	return (td->t_infomask2 & (HEAP_NATTS_MASK | SLIM_HEAP_TAIL)) == natts;
}

extern bool slim_row_on_page(Relation rel, ItemPointer tid, Buffer *buffer,
							 HeapTuple tuple);

/* after heap stored a row in buffer-heap slot */
static inline void
slim_heap_slot_check(TupleTableSlot *slot)
{
	HeapTupleHeader td = ((BufferHeapTupleTableSlot *) slot)->base.tuple->t_data;

	if (unlikely(!slim_header_is_full(td, slot->tts_tupleDescriptor->natts)))
		slim_heap_slot_widen(slot);
}

/* the same, returning true: a per-row caller's last call (a tail call) */
static inline bool
slim_heap_slot_checked(TupleTableSlot *slot)
{
	HeapTupleHeader td = ((BufferHeapTupleTableSlot *) slot)->base.tuple->t_data;

	if (unlikely(!slim_header_is_full(td, slot->tts_tupleDescriptor->natts)))
		return slim_heap_slot_widened(slot);
	return true;
}

/* the same after a callback that may or may not have stored a row */
static inline void
slim_heap_slot_check_any(TupleTableSlot *slot)
{
	if (TTS_IS_BUFFERTUPLE(slot) && !TTS_EMPTY(slot) &&
		((BufferHeapTupleTableSlot *) slot)->base.tuple != NULL)
		slim_heap_slot_check(slot);
}

/*
 * Whether slot, not slimheap's, holds a stored row (not values) shorter
 * than rel's descriptor, or with a tail: a row INSERT ... SELECT passes on
 * from a heap table's scan (heap would store it as it is, and rel's fast
 * defaults would then read past its natts), or a copy of one.
 */
static inline bool
slim_slot_holds_short_row(Relation rel, TupleTableSlot *slot)
{
	HeapTupleHeader td;

	if (TTS_IS_BUFFERTUPLE(slot) || TTS_IS_HEAPTUPLE(slot))
	{
		HeapTuple	tuple = ((HeapTupleTableSlot *) slot)->tuple;

		if (tuple == NULL)
			return false;
		td = tuple->t_data;
	}
	else if (TTS_IS_MINIMALTUPLE(slot))
	{
		MinimalTuple mtup = ((MinimalTupleTableSlot *) slot)->mintuple;

		if (mtup == NULL)
			return false;
		td = (HeapTupleHeader) ((char *) mtup - MINIMAL_TUPLE_OFFSET);
	}
	else
		return false;
	return !slim_header_is_full(td, RelationGetDescr(rel)->natts);
}

#endif							/* SLIM_HEAP_SLOT_H */
