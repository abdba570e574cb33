/*-------------------------------------------------------------------------
 *
 * slim_slot.c
 *	  slimheap's tuple table slot: rows are formed in slimheap's form when
 *	  the slot is materialized, and leave it only in heap's full form.
 *
 * A stored slimheap row may leave out trailing NULL attributes (natts below
 * the descriptor's).  That reads right only in its own table, whose fast
 * defaults it honours; so every copy handed out of the slot (copy_heap_tuple,
 * copy_minimal_tuple, and copyslot into other slot types, which use those)
 * gets every attribute again (invariant E1), and so does the tuple the slot
 * lends (get_heap_tuple: triggers, another table's insert in CREATE TABLE
 * AS), except to slimheap's own heap_multi_insert() call.
 *
 * heap's read callbacks store only into buffer-heap slots, so a slimheap
 * slot is lent to them as one (slim_slot_lend() in slim_slot.h): its leading
 * fields are a buffer-heap slot's, heap's store fills them and the slot
 * holds the buffer pin, exactly as a heap table's slot would.  heap's own
 * deforming runs on the slot too (slim_slot_deform.c).  See docs/slot.md.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_slot.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "executor/tuptable.h"
#include "storage/bufmgr.h"

#include "slim_compat.h"
#include "slim_slot.h"
#include "slim_tail.h"
#include "slimheap.h"

/* rows formed by slots and write paths of this backend (slimheap.rows_formed) */
uint64		slim_rows_formed = 0;

/* a compress slot that does not know its floor yet forms truncated rows */
static inline SlimNullBitmap
slim_slot_mode(SlimTupleTableSlot *sslot)
{
	if (sslot->ops_mode == SLIM_NULL_BITMAP_COMPRESS && sslot->prefix_floor == NULL)
		return SLIM_NULL_BITMAP_TRUNCATE;
	return sslot->ops_mode;
}

/* the former of a slot's materialize and copyslot */
static inline HeapTuple
slim_slot_form(SlimTupleTableSlot *sslot, TupleDesc desc, const Datum *values,
			   const bool *isnull)
{
	SlimNullBitmap mode = slim_slot_mode(sslot);

	slim_rows_formed++;
	return slim_form_tuple(desc, values, isnull, mode, sslot->missing_floor,
						   mode == SLIM_NULL_BITMAP_COMPRESS ?
						   slim_floor_row(sslot->prefix_floor, isnull,
										  sslot->missing_floor) :
						   desc->natts);
}

/*
 * Forget what the slot keeps about its tuple besides the tuple itself: the
 * full-form copy handed out for it, the form it was given.  Before a new
 * tuple is stored, by the slot or by heap's read callbacks
 * (slim_slot_lend_slow()).
 */
static inline void
slim_slot_forget(SlimTupleTableSlot *sslot)
{
	if (sslot->handed_out != NULL)
	{
		heap_freetuple(sslot->handed_out);
		sslot->handed_out = NULL;
		sslot->base.base.base.tts_flags &= ~SLIM_TTS_FLAG_HANDED_OUT;
	}
	sslot->lend_stored = false;
	sslot->formed_missing_floor = -1;
}

/* the same, for the read callbacks (include/slim_slot.h) */
void
slim_slot_forget_copies(SlimTupleTableSlot *sslot)
{
	slim_slot_forget(sslot);
}

/*
 * Forget the tuple, freeing it if the slot owns it, else releasing the pin
 * of its buffer, and the full-form copy handed out for it.
 */
static pg_attribute_always_inline void
slim_slot_drop_tuple(SlimTupleTableSlot *sslot)
{
	TupleTableSlot *slot = &sslot->base.base.base;

	slim_slot_forget(sslot);
	if (TTS_SHOULDFREE(slot))
	{
		heap_freetuple(SLIM_TUPLE(sslot));
		slot->tts_flags &= ~TTS_FLAG_SHOULDFREE;
	}
	else if (BufferIsValid(sslot->base.buffer))
		ReleaseBuffer(sslot->base.buffer);
	SLIM_TUPLE(sslot) = NULL;
	sslot->base.buffer = InvalidBuffer;
}

/*
 * Make the slot own tuple (palloc'd in its memory context), formed in mode
 * with floor missing_floor (-1: not known).  tuple may be a copy of the
 * buffer tuple the slot holds: that pin is released only now.
 */
static inline void
slim_slot_store_owned(SlimTupleTableSlot *sslot, HeapTuple tuple,
					  SlimNullBitmap mode, int missing_floor,
					  const SlimFloor *prefix_floor)
{
	TupleTableSlot *slot = &sslot->base.base.base;

	slim_slot_drop_tuple(sslot);

	SLIM_TUPLE(sslot) = tuple;
	slot->tts_flags &= ~TTS_FLAG_EMPTY;
	slot->tts_flags |= TTS_FLAG_SHOULDFREE;
	/* a new tuple for heap's deforming: from 19 on it trusts off to be 0 */
	slot->tts_nvalid = 0;
	sslot->base.base.off = 0;
	sslot->formed_mode = mode;
	sslot->formed_missing_floor = missing_floor;
	sslot->formed_prefix_floor = prefix_floor;
}

/* whether every attribute is passed by value; looked up once per slot */
static inline bool
slim_slot_all_byval(SlimTupleTableSlot *sslot)
{
	if (unlikely(sslot->all_byval < 0))
	{
		TupleDesc	desc = sslot->base.base.base.tts_tupleDescriptor;
		int			i;

		sslot->all_byval = 1;
		for (i = 0; i < desc->natts; i++)
		{
			if (!TupleDescAttr(desc, i)->attbyval)
			{
				sslot->all_byval = 0;
				break;
			}
		}
	}
	return sslot->all_byval > 0;
}

/*
 * The row just formed from values of only by-value attributes reads back
 * as those values: keep them valid, so that constraint checks and index
 * inserts need not deform it again (not for a table that has neither:
 * slim_slot_ops()).  values may be the slot's own arrays.
 */
static inline void
slim_slot_keep_values(SlimTupleTableSlot *sslot, const Datum *values,
					  const bool *isnull)
{
	TupleTableSlot *slot = &sslot->base.base.base;
	int			natts = slot->tts_tupleDescriptor->natts;

	if (!slim_slot_all_byval(sslot))
		return;
	if (values != slot->tts_values)
	{
		memcpy(slot->tts_values, values, natts * sizeof(Datum));
		memcpy(slot->tts_isnull, isnull, natts * sizeof(bool));
	}
	slim_tail_reader_forget(&sslot->tail_reader);
	slot->tts_nvalid = natts;
}

/*
 * A standard stored row (source, of the slot's layout) in another form
 * without deforming it: its tail made from its bytes (compress), else a new
 * header; NULL when it already has the form asked for.
 */
static HeapTuple
slim_slot_reshape(SlimTupleTableSlot *sslot, HeapTuple source,
				  SlimNullBitmap mode, int missing_floor,
				  const SlimFloor *prefix_floor)
{
	TupleDesc	desc = sslot->base.base.base.tts_tupleDescriptor;
	HeapTuple	tuple = NULL;

	slim_rows_formed++;
	if (mode == SLIM_NULL_BITMAP_COMPRESS)
		tuple = slim_transcode_tail_tuple(source, desc,
										  slim_slot_att_info(sslot),
										  Max(slim_floor_stored(prefix_floor,
																source->t_data,
																desc),
											  missing_floor));
	if (tuple == NULL)
		tuple = slim_refit_tuple(source, desc, mode, missing_floor);
	return tuple;
}

/* ExecClearTuple() (our clear) has released the buffer pin by now */
void
slim_slot_release(TupleTableSlot *slot)
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;

	if (sslot->attinfo != NULL)
		pfree(sslot->attinfo);
	if (sslot->tail_reader.attinfo != NULL)
		pfree(sslot->tail_reader.attinfo);
}

void
slim_slot_clear(TupleTableSlot *slot)
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;

	slim_slot_drop_tuple(sslot);
	/* whoever stores into the slot next may write any of its entries */
	slim_tail_reader_forget(&sslot->tail_reader);
	slot->tts_nvalid = 0;
	sslot->base.base.off = 0;
	slot->tts_flags |= TTS_FLAG_EMPTY;
	ItemPointerSetInvalid(&slot->tts_tid);
}

/*
 * A virtual row is formed here, in the slot's form, once; a row lent by a
 * buffer is copied as it is stored.
 */
void
slim_slot_materialize(TupleTableSlot *slot)
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;
	MemoryContext oldcxt;
	HeapTuple	tuple;
	int			floor = -1;

	Assert(!TTS_EMPTY(slot));
	if (TTS_SHOULDFREE(slot))
		return;

	oldcxt = MemoryContextSwitchTo(slot->tts_mcxt);
	if (SLIM_TUPLE(sslot) == NULL)
	{
		tuple = slim_slot_form(sslot, slot->tts_tupleDescriptor,
							   slot->tts_values, slot->tts_isnull);
		floor = sslot->missing_floor;
	}
	else
		tuple = heap_copytuple(SLIM_TUPLE(sslot));
	MemoryContextSwitchTo(oldcxt);

	slim_slot_store_owned(sslot, tuple, slim_slot_mode(sslot), floor,
						  sslot->prefix_floor);
	if (floor >= 0)
		slim_slot_keep_values(sslot, slot->tts_values, slot->tts_isnull);
}

/*
 * The stored tuple a slot holds, when it is standard and its attributes past
 * the tuple's natts are NULL (not fast defaults of its descriptor), so that
 * a new header is all it takes to store it elsewhere; NULL otherwise.
 */
HeapTuple
slim_slot_plain_tuple(TupleTableSlot *slot)
{
	HeapTuple	tuple;
	int			natts;

	if (TTS_IS_SLIMHEAP(slot))
	{
		tuple = SLIM_TUPLE((SlimTupleTableSlot *) slot);
		if (tuple != NULL &&
			(SlimHeaderHasTail(tuple->t_data) ||
			 HeapTupleHeaderGetNatts(tuple->t_data) <
			 ((SlimTupleTableSlot *) slot)->missing_floor))
			return NULL;
		return tuple;
	}
	if (!TTS_IS_HEAPTUPLE(slot) && !TTS_IS_BUFFERTUPLE(slot))
		return NULL;

	tuple = ((HeapTupleTableSlot *) slot)->tuple;
	if (tuple == NULL)
		return NULL;
	natts = HeapTupleHeaderGetNatts(tuple->t_data);
	if (natts < slot->tts_tupleDescriptor->natts &&
		natts < slim_missing_floor(slot->tts_tupleDescriptor))
		return NULL;
	return tuple;
}

/*
 * INSERT ... SELECT hands its rows over this way.  A stored row of the same
 * layout only gets a new header; any other row is formed from its values,
 * once.
 */
void
slim_slot_copyslot(TupleTableSlot *dstslot, TupleTableSlot *srcslot)
{
	SlimTupleTableSlot *dst = (SlimTupleTableSlot *) dstslot;
	TupleDesc	desc = dstslot->tts_tupleDescriptor;
	HeapTuple	source = NULL;
	HeapTuple	tuple;
	SlimNullBitmap mode = slim_slot_mode(dst);
	MemoryContext oldcxt;

	/*
	 * A virtual row whose last attribute is set (or any, in full mode) has
	 * nothing to leave out: heap's own former gives its stored form, given
	 * the source's descriptor as heap's slots give it (the same bytes).
	 */
	if (TTS_IS_VIRTUAL(srcslot) &&
		srcslot->tts_tupleDescriptor->natts == desc->natts &&
		dst->ops_mode != SLIM_NULL_BITMAP_COMPRESS &&
		(desc->natts == 0 || !srcslot->tts_isnull[desc->natts - 1] ||
		 dst->ops_mode == SLIM_NULL_BITMAP_FULL))
	{
		oldcxt = MemoryContextSwitchTo(dstslot->tts_mcxt);
		tuple = heap_form_tuple(srcslot->tts_tupleDescriptor,
								srcslot->tts_values, srcslot->tts_isnull);
		MemoryContextSwitchTo(oldcxt);
		slim_rows_formed++;
		tuple->t_self = srcslot->tts_tid;
		tuple->t_tableOid = srcslot->tts_tableOid;
		/* every attribute stored: right for any floor */
		slim_slot_store_owned(dst, tuple, dst->ops_mode, desc->natts,
							  dst->prefix_floor);
		dstslot->tts_tid = tuple->t_self;
		slim_slot_keep_values(dst, srcslot->tts_values, srcslot->tts_isnull);
		return;
	}

	if (srcslot->tts_tupleDescriptor->natts != desc->natts)
	{
		/* the generic way: take the values, fill in the rest, form */
		int			srcnatts = srcslot->tts_tupleDescriptor->natts;

		Assert(srcnatts < desc->natts);
		slot_getallattrs(srcslot);
		ExecClearTuple(dstslot);
		memcpy(dstslot->tts_values, srcslot->tts_values,
			   srcnatts * sizeof(Datum));
		memcpy(dstslot->tts_isnull, srcslot->tts_isnull,
			   srcnatts * sizeof(bool));
		slot_getmissingattrs(dstslot, srcnatts, desc->natts);
		ExecStoreVirtualTuple(dstslot);
		slim_slot_materialize(dstslot);
		return;
	}

	if (!TTS_IS_VIRTUAL(srcslot))
		source = slim_slot_plain_tuple(srcslot);
	oldcxt = MemoryContextSwitchTo(dstslot->tts_mcxt);
	if (source != NULL)
	{
		tuple = slim_slot_reshape(dst, source, mode, dst->missing_floor,
								  dst->prefix_floor);
		if (tuple == NULL)
			tuple = heap_copytuple(source);
		tuple->t_self = source->t_self;
		tuple->t_tableOid = source->t_tableOid;
	}
	else
	{
		slot_getallattrs(srcslot);
		tuple = slim_slot_form(dst, desc, srcslot->tts_values,
							   srcslot->tts_isnull);
		tuple->t_self = srcslot->tts_tid;
		tuple->t_tableOid = srcslot->tts_tableOid;
	}
	MemoryContextSwitchTo(oldcxt);

	slim_slot_store_owned(dst, tuple, mode, dst->missing_floor,
						  dst->prefix_floor);
	/* as heap's slots do: the copy of a stored row knows where it is */
	dstslot->tts_tid = tuple->t_self;
	if (source == NULL)
		slim_slot_keep_values(dst, srcslot->tts_values, srcslot->tts_isnull);
}

/*
 * While set, the slot lends its stored tuple (get_heap_tuple) instead of a
 * full copy: slimheap's multi-insert hands heap_multi_insert() slots.
 */
void
slim_slot_lend_stored(TupleTableSlot *slot, bool lend)
{
	Assert(TTS_IS_SLIMHEAP(slot));
	((SlimTupleTableSlot *) slot)->lend_stored = lend;
}

/*
 * Make a slimheap slot hold its row in the form relation info stores it
 * (mode, at least missing_floor attributes, a tail only past prefix_floor),
 * owned by the slot so that heap can write the header; return that tuple.
 * The row must also read back right through the slot's own descriptor,
 * which may be another table's (the scan slot of INSERT ... SELECT, handed
 * over as it is): at least that descriptor's missing floor is stored.  Not
 * for a rewrite's transient table (info->rewrite_target), whose slot has
 * the old table's descriptor, whose defaults the rewrite clears, and which
 * nothing reads the row through once it is stored.
 */
HeapTuple
slim_slot_fit(TupleTableSlot *slot, const SlimRelInfo *info)
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;
	TupleDesc	desc = slot->tts_tupleDescriptor;
	HeapTuple	tuple = SLIM_TUPLE(sslot);
	SlimNullBitmap mode = info->options.null_bitmap;
	int			missing_floor = info->rewrite_target ? info->missing_floor :
		Max(info->missing_floor, sslot->missing_floor);
	HeapTuple	fitted;
	MemoryContext oldcxt;

	Assert(TTS_IS_SLIMHEAP(slot) && !TTS_EMPTY(slot));

	/* a compress slot forms its next rows with its relation's floor */
	if (sslot->ops_mode == SLIM_NULL_BITMAP_COMPRESS)
		sslot->prefix_floor = info->prefix_floor;

	/* formed for this already (materialized or copied into the slot) */
	if (sslot->formed_missing_floor >= missing_floor && sslot->formed_mode == mode &&
		(mode != SLIM_NULL_BITMAP_COMPRESS ||
		 sslot->formed_prefix_floor == info->prefix_floor))
		return tuple;

	oldcxt = MemoryContextSwitchTo(slot->tts_mcxt);
	if (tuple == NULL || SlimHeaderHasTail(tuple->t_data) ||
		HeapTupleHeaderGetNatts(tuple->t_data) < sslot->missing_floor)
	{
		slot_getallattrs(slot);
		slim_rows_formed++;
		fitted = slim_form_tuple(desc, slot->tts_values, slot->tts_isnull,
								 mode, missing_floor,
								 slim_floor_row(info->prefix_floor,
												slot->tts_isnull,
												missing_floor));
	}
	else
	{
		fitted = slim_slot_reshape(sslot, tuple, mode, missing_floor,
								   info->prefix_floor);
		/* heap writes into the header: never into a shared buffer */
		if (fitted == NULL && !TTS_SHOULDFREE(slot))
			fitted = heap_copytuple(tuple);
	}
	MemoryContextSwitchTo(oldcxt);

	if (fitted != NULL)
		slim_slot_store_owned(sslot, fitted, mode, missing_floor,
							  info->prefix_floor);
	else
	{
		sslot->formed_mode = mode;
		sslot->formed_missing_floor = missing_floor;
		sslot->formed_prefix_floor = info->prefix_floor;
	}
	return SLIM_TUPLE(sslot);
}
