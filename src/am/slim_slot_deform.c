/*-------------------------------------------------------------------------
 *
 * slim_slot_deform.c
 *	  slimheap's slot, reading a row's attributes: heap's deforming on the
 *	  slot itself for a standard row or a tail row's prefix, the tail
 *	  decoder past it, and the system columns.
 *
 * heap fills the slot, lent to it as a buffer-heap slot (slim_am_read.c),
 * and heap's deforming then runs on it too: its leading fields are a
 * buffer-heap slot's (docs/slot.md).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_slot_deform.c
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
 * The slot's tail reader, whose arrays are made for the first tail row it
 * reads: the decoder fills in the attributes' facts as it meets them, so
 * only the flags saying which it knows start zeroed (a lookup reads one
 * row).
 */
static inline SlimTailReader *
slim_slot_tail_reader(SlimTupleTableSlot *sslot)
{
	SlimTailReader *rd = &sslot->tail_reader;

	if (unlikely(rd->attinfo == NULL))
	{
		TupleTableSlot *slot = &sslot->base.base.base;
		int			n = slot->tts_tupleDescriptor->natts;

		rd->attinfo = MemoryContextAlloc(slot->tts_mcxt,
										 (sizeof(SlimAttInfo) +
										  sizeof(int16) + 1) * n);
		rd->set = (int16 *) (rd->attinfo + n);
		rd->known = (bool *) (rd->set + n);
		memset(rd->known, false, n);
	}
	return rd;
}

/*
 * The attributes [tts_nvalid, natts) of a tail row with a prefix of
 * prefix_natts < natts: the rest of the prefix, then the tail decoded from
 * where an earlier call stopped.  The prefix is deformed as heap would
 * (slim_deform_tail_prefix(), cheaper than heap's code for a sparse
 * prefix), continuing heap's deforming of a part of it (a read of an early
 * attribute, heap's callback) if there was one: the state is heap's, in the
 * slot's own fields, tts_nvalid and off as heap's deforming leaves them,
 * and the slow flag set (heap's code, were it to go on, would then not
 * trust cached offsets; it never goes on past the header's natts).  off
 * then stays where the prefix ends while the tail is decoded.  Apart from
 * slim_slot_getsomeattrs(), whose every call then saves the registers this
 * needs.
 */
static pg_noinline void
slim_slot_getsomeattrs_tail(SlimTupleTableSlot *sslot, HeapTupleHeader td,
							int prefix_natts, int natts)
{
	TupleTableSlot *slot = &sslot->base.base.base;
	HeapTupleTableSlot *hslot = &sslot->base.base;
	SlimTailReader *rd = slim_slot_tail_reader(sslot);

	if (slot->tts_nvalid < prefix_natts)
	{
		int			from = slot->tts_nvalid;

		hslot->off = slim_deform_tail_prefix(td, slot->tts_tupleDescriptor,
											 rd, from == 0 ? 0 : hslot->off,
											 from, prefix_natts,
											 slot->tts_values,
											 slot->tts_isnull);
		slot->tts_flags |= SLIM_TTS_DEFORM_FLAGS;
		slim_tail_reader_wrote(rd, prefix_natts);
	}
	slot->tts_nvalid =
		slim_deform_tail_upto(td, slot->tts_tupleDescriptor, rd,
							  prefix_natts > 0 ? hslot->off : 0,
							  Max(slot->tts_nvalid, prefix_natts), natts,
							  slot->tts_values, slot->tts_isnull);
	/* 19: the attributes past the row's are this callback's to fill in */
	if (SLIM_SLOT_FILLS_MISSING && slot->tts_nvalid < natts)
	{
		slot_getmissingattrs(slot, slot->tts_nvalid, natts);
		slim_tail_reader_forget(rd);
		slot->tts_nvalid = natts;
	}
}

/*
 * Only reached when the slot holds a tuple (a virtual one has every value
 * valid).  heap's code deforms a standard row, and a tail row when only
 * its prefix is asked for, on the slot itself: it starts with a buffer-heap
 * slot's fields (the tuple, the saved offset, tts_nvalid) and heap's
 * callback reads nothing else.  19's heap reads the leading attributes the slot's
 * creator guarantees (NOT NULL, by value, never missing:
 * tts_first_nonguaranteed) at their cached offsets without NULL checks:
 * right for these rows too, as a row without a tail stores those
 * attributes as heap does (truncation drops only trailing NULLs), and of a
 * tail row heap is asked for the prefix only.  Past the prefix,
 * slim_slot_getsomeattrs_tail() decodes only as far as natts, so
 * tts_nvalid stays exact: a later call for more continues.  Attributes
 * past the tail are the caller's (slot_getsomeattrs_int() fills in their
 * missing values) before 19, this callback's from 19 on.
 */
void
slim_slot_getsomeattrs(TupleTableSlot *slot, int natts)
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;
	HeapTupleHeader td = SLIM_TUPLE(sslot)->t_data;

	Assert(!TTS_EMPTY(slot));
	if (unlikely(SlimHeaderHasTail(td)) && natts > HeapTupleHeaderGetNatts(td))
	{
		slim_slot_getsomeattrs_tail(sslot, td, HeapTupleHeaderGetNatts(td),
									natts);
		return;
	}

	/*
	 * heap writes [0, tts_nvalid), our caller the rest; 19's heap writes
	 * the missing values too, and isnull up to a multiple of 8.  Told
	 * first, so that heap's callback is the last call (no frame kept).
	 */
	slim_tail_reader_wrote(&sslot->tail_reader,
						   slim_heap_deform_reach(natts,
												  slot->tts_tupleDescriptor->natts));
	/*
	 * heap's callback itself, not slot_getsomeattrs(): the attributes past
	 * the tuple's natts are filled in by our caller, slot_getsomeattrs_int()
	 */
	TTSOpsBufferHeapTuple.getsomeattrs(slot, natts);
}

Datum
slim_slot_getsysattr(TupleTableSlot *slot, int attnum, bool *isnull)
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;

	if (SLIM_TUPLE(sslot) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot retrieve a system column in this context")));
	return heap_getsysattr(SLIM_TUPLE(sslot), attnum,
						   slot->tts_tupleDescriptor, isnull);
}
