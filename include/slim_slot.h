/*-------------------------------------------------------------------------
 *
 * slim_slot.h
 *	  slimheap's slot type, as the read callbacks see it: heap fills the
 *	  slot's reader, and the slot then shows what the reader holds.
 *
 * What is here runs once per row read, so it is inline; the slot's other
 * callbacks are in slim_slot.c, and docs/slot.md tells the whole story.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_slot.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_SLOT_H
#define SLIM_SLOT_H

#include "executor/tuptable.h"

#include "slimheap.h"

typedef struct SlimTupleTableSlot
{
	/* first, so that heap code casting the slot finds tuple and buffer */
	BufferHeapTupleTableSlot base;
	BufferHeapTupleTableSlot reader_data;	/* the reader, see tts_slim_init */
	TupleTableSlot *reader;		/* &reader_data: filled by heap, deforms */
	int			floor_natts;	/* slim_missing_natts() of the descriptor */
	HeapTuple	handed_out;		/* full-form copy get_heap_tuple gave out */
	bool		lend_stored;	/* get_heap_tuple lends the stored form */
	SlimNullBitmap ops_mode;	/* the mode of the slot's ops table */

	/*
	 * The form the owned tuple was given: mode and floor (min_natts), or
	 * formed_floor -1 when unknown (a copy of a stored row).  Lets the
	 * write path skip a second look at a row formed for it.
	 */
	SlimNullBitmap formed_mode;
	int			formed_floor;
	int			formed_prefix;	/* compress: prefix_natts it was formed with */
	int			prefix_natts;	/* compress: the relation's, -1 unknown */
	struct SlimAttInfo *attinfo;	/* compress: slim_att_info(), or NULL */
	struct SlimAttInfo *read_attinfo;	/* the tail decoder's, or NULL */
	bool	   *read_known;		/* which of read_attinfo are filled in */
} SlimTupleTableSlot;

#define SLIM_TUPLE(sslot)	((sslot)->base.base.tuple)

extern void slim_slot_sync_slow(SlimTupleTableSlot *sslot,
								TupleTableSlot *reader);

/*
 * The slot heap's read callbacks are to fill: a slimheap slot's reader, or
 * any other slot itself.
 */
static inline TupleTableSlot *
slim_slot_reader(TupleTableSlot *slot)
{
	return TTS_IS_SLIMHEAP(slot) ? ((SlimTupleTableSlot *) slot)->reader : slot;
}

/* show in the slot the tuple and buffer the reader holds (its pin) */
static inline void
slim_slot_show_reader(SlimTupleTableSlot *sslot, TupleTableSlot *reader)
{
	TupleTableSlot *slot = &sslot->base.base.base;

	SLIM_TUPLE(sslot) = ((BufferHeapTupleTableSlot *) reader)->base.tuple;
	sslot->base.buffer = ((BufferHeapTupleTableSlot *) reader)->buffer;
	slot->tts_flags &= ~TTS_FLAG_EMPTY;
	slot->tts_nvalid = reader->tts_nvalid;
	slot->tts_tid = reader->tts_tid;
	slot->tts_tableOid = reader->tts_tableOid;
}

/*
 * After a heap callback had the reader: show what it holds now.  A slot
 * that only showed the reader's previous row takes the new one with a few
 * stores; the rest is slim_slot_sync_slow().
 */
static inline void
slim_slot_sync(TupleTableSlot *slot, TupleTableSlot *reader)
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;

	if (slot == reader)
		return;
	if (likely(!TTS_SHOULDFREE(slot) && sslot->handed_out == NULL &&
			   !TTS_EMPTY(reader)))
		slim_slot_show_reader(sslot, reader);
	else
		slim_slot_sync_slow(sslot, reader);
}

#endif							/* SLIM_SLOT_H */
