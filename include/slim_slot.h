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

#include "slim_tail.h"
#include "slimheap.h"

typedef struct SlimTupleTableSlot
{
	/* first, so that heap code casting the slot finds tuple and buffer */
	BufferHeapTupleTableSlot base;
	/* the reader (SLIM_READER), filled by heap and holding the pin */
	BufferHeapTupleTableSlot reader_data;
	int			missing_floor;	/* slim_missing_floor() of the descriptor */
	HeapTuple	handed_out;		/* full-form copy get_heap_tuple gave out */
	bool		lend_stored;	/* get_heap_tuple lends the stored form */
	SlimNullBitmap ops_mode;	/* the mode of the slot's ops table */

	/*
	 * The form the owned tuple was given: mode and floors (its missing
	 * floor, never below the descriptor's missing_floor but for a rewrite's
	 * transient table, slim_slot_fit(); natts for a row that stores every
	 * attribute), or formed_missing_floor -1 when unknown
	 * (a copy of a stored row).  Lets the write path skip a second look at
	 * a row formed for it.
	 */
	SlimNullBitmap formed_mode;
	int			formed_missing_floor;
	const SlimFloor *formed_prefix_floor;	/* compress: the floor it had */
	const SlimFloor *prefix_floor;	/* compress: the relation's, or NULL */
	struct SlimAttInfo *attinfo;	/* slim_slot_att_info(), or NULL */
	int8		all_byval;		/* every attribute by value: 1, 0, -1 unknown */
	SlimTailReader tail_reader; /* the tail decoder's; attinfo NULL: unused */
} SlimTupleTableSlot;

#define SLIM_TUPLE(sslot)	((sslot)->base.base.tuple)
/* the slot's reader: heap's read callbacks fill it (slim_slot_init()) */
#define SLIM_READER(sslot)	(&(sslot)->reader_data.base.base)

/* slim_slot_deform.c: reading a row's attributes */
extern void slim_slot_getsomeattrs(TupleTableSlot *slot, int natts);
extern Datum slim_slot_getsysattr(TupleTableSlot *slot, int attnum,
								  bool *isnull);

/* slim_slot.c: the callbacks that form rows and show what was read */
extern void slim_slot_release(TupleTableSlot *slot);
extern void slim_slot_clear(TupleTableSlot *slot);
extern void slim_slot_materialize(TupleTableSlot *slot);
extern void slim_slot_copyslot(TupleTableSlot *dstslot,
							   TupleTableSlot *srcslot);
extern HeapTuple slim_slot_plain_tuple(TupleTableSlot *slot);
extern void slim_slot_sync_slow(SlimTupleTableSlot *sslot,
								TupleTableSlot *reader);
extern bool slim_slot_sync_to(SlimTupleTableSlot *sslot, bool found);

/* slim_slot_copy.c: what leaves the slot, in heap's full form (E1) */
extern HeapTuple slim_slot_get_heap_tuple(TupleTableSlot *slot);
extern HeapTuple slim_slot_copy_heap_tuple(TupleTableSlot *slot);
#if PG_VERSION_NUM >= 180000
extern MinimalTuple slim_slot_copy_minimal_tuple(TupleTableSlot *slot,
												 Size extra);
#else
extern MinimalTuple slim_slot_copy_minimal_tuple(TupleTableSlot *slot);
#endif

/*
 * The write path's fit check (slim_slot_fit()), inline for the usual case:
 * the slot formed its row for info's mode and floor already.  A compress
 * row also needs info's prefix, which the slow path checks and records.
 */
static inline HeapTuple
slim_slot_fitted(TupleTableSlot *slot, const SlimRelInfo *info)
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;

	if (likely(sslot->formed_missing_floor >= info->missing_floor &&
			   sslot->formed_mode == info->options.null_bitmap))
	{
		if (sslot->formed_mode != SLIM_NULL_BITMAP_COMPRESS)
			return SLIM_TUPLE(sslot);
		if (sslot->formed_prefix_floor == info->prefix_floor)
		{
			/* as slim_slot_fit(): later rows are formed with this floor */
			sslot->prefix_floor = info->prefix_floor;
			return SLIM_TUPLE(sslot);
		}
	}
	return slim_slot_fit(slot, info);
}

/*
 * The packed facts of the slot's attributes, made once: the transcoder's,
 * and the tail copies' (slim_slot_copy.c)
 */
static inline const SlimAttInfo *
slim_slot_att_info(SlimTupleTableSlot *sslot)
{
	TupleTableSlot *slot = &sslot->base.base.base;

	if (sslot->attinfo == NULL)
		sslot->attinfo = slim_att_info(slot->tts_tupleDescriptor,
									   slot->tts_mcxt);
	return sslot->attinfo;
}

/*
 * The slot heap's read callbacks are to fill: a slimheap slot's reader, or
 * any other slot itself.
 */
static inline TupleTableSlot *
slim_slot_reader(TupleTableSlot *slot)
{
	return TTS_IS_SLIMHEAP(slot) ? SLIM_READER((SlimTupleTableSlot *) slot) : slot;
}

#define SLIM_TID_OID_LEN \
	(offsetof(TupleTableSlot, tts_tableOid) + sizeof(Oid) - \
	 offsetof(TupleTableSlot, tts_tid))
StaticAssertDecl(offsetof(TupleTableSlot, tts_tableOid) >
				 offsetof(TupleTableSlot, tts_tid),
				 "tts_tableOid no longer follows tts_tid");

/* show in the slot the tuple and buffer the reader holds (its pin) */
static inline void
slim_slot_show_reader(SlimTupleTableSlot *sslot, TupleTableSlot *reader)
{
	TupleTableSlot *slot = &sslot->base.base.base;

	SLIM_TUPLE(sslot) = ((BufferHeapTupleTableSlot *) reader)->base.tuple;
	sslot->base.buffer = ((BufferHeapTupleTableSlot *) reader)->buffer;
	slot->tts_flags &= ~TTS_FLAG_EMPTY;
	/*
	 * heap's deforming runs on the slot, and from 19 on it starts a new
	 * tuple at the saved offset (it expects 0 there), as a buffer-heap
	 * slot's store leaves it; the reader is never deformed
	 */
	slot->tts_nvalid = 0;
	sslot->base.base.off = 0;
	/* tts_tid and tts_tableOid, and the padding between them, at once */
	memcpy(&slot->tts_tid, &reader->tts_tid, SLIM_TID_OID_LEN);
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

/*
 * A read callback's end for a slimheap slot, once heap's callback has had
 * its reader and returned found (true: it stored a tuple there): the
 * callback's result.  Only the slot is needed after heap's call (the reader
 * lies inside it), and the rare paths are calls that return the result, so
 * a callback keeps no more than the slot across heap's call.
 */
static inline bool
slim_slot_synced(SlimTupleTableSlot *sslot, bool found)
{
	Assert(TTS_IS_SLIMHEAP(&sslot->base.base.base));
	if (unlikely(!found))
		return slim_slot_sync_to(sslot, false);
	if (unlikely(TTS_SHOULDFREE(&sslot->base.base.base) ||
				 sslot->handed_out != NULL))
		return slim_slot_sync_to(sslot, true);
	slim_slot_show_reader(sslot, SLIM_READER(sslot));
	return true;
}

#endif							/* SLIM_SLOT_H */
