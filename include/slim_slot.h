/*-------------------------------------------------------------------------
 *
 * slim_slot.h
 *	  slimheap's slot type, as the read callbacks see it: heap fills the
 *	  slot itself, lent to it as a buffer-heap slot for the call.
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
#include "utils/snapmgr.h"

#include "slim_tail.h"
#include "slimheap.h"

typedef struct SlimTupleTableSlot
{
	/*
	 * first, so that heap's code finds tuple, buffer and deforming state
	 * where a buffer-heap slot has them; the slot holds the pin of buffer
	 */
	BufferHeapTupleTableSlot base;
	int			missing_floor;	/* slim_missing_floor() of the descriptor */
	HeapTuple	handed_out;		/* full-form copy get_heap_tuple gave out */
	bool		lend_stored;	/* get_heap_tuple lends the stored form */
	SlimNullBitmap ops_mode;	/* the mode of the slot's ops table */
	const TupleTableSlotOps *own_ops;	/* &SlimTTSOps[ops_mode] */

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

/*
 * A flag of the slot's own, set while handed_out is: with TTS_FLAG_SHOULDFREE
 * it tells in one test that the slot keeps something besides its tuple.
 * Above the flags PostgreSQL defines (bits 1-4 on 15 to 19).
 */
#define SLIM_TTS_FLAG_HANDED_OUT	(1 << 15)
StaticAssertDecl((SLIM_TTS_FLAG_HANDED_OUT &
				  (TTS_FLAG_EMPTY | TTS_FLAG_SHOULDFREE | TTS_FLAG_FIXED)) == 0,
				 "SLIM_TTS_FLAG_HANDED_OUT collides with a flag of PostgreSQL's");

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
extern void slim_slot_forget_copies(SlimTupleTableSlot *sslot);

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
 * heap's read callbacks store only into buffer-heap slots
 * (ExecStoreBufferHeapTuple() compares the slot's ops), so a slimheap slot
 * is lent to heap as one for the call: its leading fields are a buffer-heap
 * slot's, and while heap holds it heap's ops manage them (a new tuple, the
 * pin of its buffer, the end of a scan), exactly as for a heap table.
 * slim_slot_take_back() gives the slot its own ops again right after
 * heap's call.  What the slot keeps besides (a full-form copy handed out,
 * the form of a tuple it formed) belongs to the tuple it holds now and
 * would outlive it, so a slot that keeps any is lent by
 * slim_slot_lend_slow(), which forgets it first (rare: it exists only once
 * a row was formed in the slot or copied out of it).  heap's callback ends
 * in a store or a clear, or in an error; after an error the executor that
 * called it never reads the slot again (docs/slot.md).
 */
static inline bool
slim_slot_lendable(TupleTableSlot *slot)
{
	return TTS_IS_SLIMHEAP(slot) &&
		(slot->tts_flags & (TTS_FLAG_SHOULDFREE | SLIM_TTS_FLAG_HANDED_OUT)) == 0;
}

static inline void
slim_slot_lend(TupleTableSlot *slot)
{
	*((const TupleTableSlotOps **) &slot->tts_ops) = &TTSOpsBufferHeapTuple;
	if (SLIM_STORED_FORM_UNDER_ANY)
		((SlimTupleTableSlot *) slot)->lend_stored = false;
}

/*
 * 19: a scan or index fetch under SnapshotAny (SLIM_READS_STORED_FORM)
 * leaves the slot lending its stored row, header and all, as heap's slot
 * would; the next lending forgets it.  Nothing before 19.
 */
static inline void
slim_slot_read_under(TupleTableSlot *slot, Snapshot snapshot)
{
	if (SLIM_STORED_FORM_UNDER_ANY && SLIM_READS_STORED_FORM(snapshot))
		((SlimTupleTableSlot *) slot)->lend_stored = true;
}

/* the slot's own ops again, after heap's call: a load and a store */
static inline void
slim_slot_take_back(TupleTableSlot *slot)
{
	*((const TupleTableSlotOps **) &slot->tts_ops) =
		((SlimTupleTableSlot *) slot)->own_ops;
}

/* a slimheap slot that keeps copies: forget them, then lend it */
static inline void
slim_slot_lend_slow(TupleTableSlot *slot)
{
	Assert(TTS_IS_SLIMHEAP(slot));
	slim_slot_forget_copies((SlimTupleTableSlot *) slot);
	slim_slot_lend(slot);
}

#endif							/* SLIM_SLOT_H */
