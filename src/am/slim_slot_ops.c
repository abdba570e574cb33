/*-------------------------------------------------------------------------
 *
 * slim_slot_ops.c
 *	  The ops tables of slimheap's slot type, one per mode, how a slot is set
 *	  up, and slot_callbacks, which picks a relation's table.
 *
 * The callbacks are slim_slot.c's (forming and reading rows) and
 * slim_slot_copy.c's (what leaves the slot, invariant E1); docs/slot.md
 * tells the story.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_slot_ops.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "executor/tuptable.h"

#include "slim_heap_slot.h"
#include "slim_slot.h"
#include "slimheap.h"

/*
 * A compress slot forms rows with its relation's prefix floor, which the
 * slot is not told: slot_callbacks leaves it here for the slot that
 * table_slot_create() makes right after, recognised by its descriptor, and
 * the next slot made takes it away whichever slot that is.  It is only a
 * hint: the write path stores a row only when it was formed with the
 * relation's own floor, and tells the slot that floor (slim_slot_fit()).
 */
static struct
{
	TupleDesc	desc;
	Oid			typeid;
	const SlimFloor *prefix_floor;
	bool		reads_values;	/* see slim_slot_keep_values() */
}			slim_next_slot;

/*
 * Set up what a slot adds to a buffer-heap slot's fields (which
 * MakeTupleTableSlot() zeroed: no tuple, no buffer): the mode, the floors,
 * and what is looked up once per slot.
 */
static pg_attribute_always_inline void
slim_slot_init(TupleTableSlot *slot, SlimNullBitmap mode)
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;

	/* table slots always have one; the floors depend on it */
	if (slot->tts_tupleDescriptor == NULL)
		elog(ERROR, "a slimheap slot needs a tuple descriptor");

	sslot->missing_floor = slim_missing_floor(slot->tts_tupleDescriptor);
	sslot->formed_missing_floor = -1;
	sslot->prefix_floor = NULL;
	sslot->all_byval = -1;
	sslot->ops_mode = mode;
	sslot->own_ops = &SlimTTSOps[mode];
	if (slot->tts_tupleDescriptor == slim_next_slot.desc &&
		slot->tts_tupleDescriptor->tdtypeid == slim_next_slot.typeid)
	{
		if (mode == SLIM_NULL_BITMAP_COMPRESS)
			sslot->prefix_floor = slim_next_slot.prefix_floor;
		if (!slim_next_slot.reads_values)
			sslot->all_byval = 0;
	}
	slim_next_slot.desc = NULL;
}

#if PG_VERSION_NUM >= 170000
static bool
tts_slim_is_current_xact_tuple(TupleTableSlot *slot)
{
	SlimTupleTableSlot *sslot = (SlimTupleTableSlot *) slot;

	if (SLIM_TUPLE(sslot) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("don't have a storage tuple in this context")));
	return TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetRawXmin(SLIM_TUPLE(sslot)->t_data));
}
#define SLIM_SLOT_OPS_CURRENT_XACT \
	.is_current_xact_tuple = tts_slim_is_current_xact_tuple,
#else
#define SLIM_SLOT_OPS_CURRENT_XACT
#endif

/*
 * One ops table per mode, so that a slot knows the form it materializes
 * rows in without knowing its relation (table_slot_create() tells it
 * nothing else); its init writes the mode into the slot.
 */
static void
tts_slim_init_truncate(TupleTableSlot *slot)
{
	slim_slot_init(slot, SLIM_NULL_BITMAP_TRUNCATE);
}

static void
tts_slim_init_full(TupleTableSlot *slot)
{
	slim_slot_init(slot, SLIM_NULL_BITMAP_FULL);
}

static void
tts_slim_init_compress(TupleTableSlot *slot)
{
	slim_slot_init(slot, SLIM_NULL_BITMAP_COMPRESS);
}

#define SLIM_SLOT_OPS(init_mode) \
{ \
	.base_slot_size = sizeof(SlimTupleTableSlot), \
	.init = init_mode, \
	.release = slim_slot_release, \
	.clear = slim_slot_clear, \
	.getsomeattrs = slim_slot_getsomeattrs, \
	.getsysattr = slim_slot_getsysattr, \
	SLIM_SLOT_OPS_CURRENT_XACT \
	.materialize = slim_slot_materialize, \
	.copyslot = slim_slot_copyslot, \
	.get_heap_tuple = slim_slot_get_heap_tuple, \
	.get_minimal_tuple = NULL, \
	.copy_heap_tuple = slim_slot_copy_heap_tuple, \
	.copy_minimal_tuple = slim_slot_copy_minimal_tuple \
}

const TupleTableSlotOps SlimTTSOps[3] = {
	[SLIM_NULL_BITMAP_FULL] = SLIM_SLOT_OPS(tts_slim_init_full),
	[SLIM_NULL_BITMAP_TRUNCATE] = SLIM_SLOT_OPS(tts_slim_init_truncate),
	[SLIM_NULL_BITMAP_COMPRESS] = SLIM_SLOT_OPS(tts_slim_init_compress)
};

/*
 * slot_callbacks: heap's own slot for a narrow table (its rows are heap's,
 * and the read callbacks give heap's slot full rows only), else the ops of
 * rel's mode, and for the slot made next what only rel knows: the floor
 * (compress), and whether the executor reads a new row's values back
 * (constraints, indexes, triggers).
 */
const TupleTableSlotOps *
slim_slot_ops(Relation rel, const SlimRelInfo *info)
{
	TupleDesc	desc = RelationGetDescr(rel);

	if (info->narrow && !slim_heap_slot_short_rows(RelationGetRelid(rel)))
	{
		/* no slimheap slot follows this call: no hint to leave */
		slim_next_slot.desc = NULL;
		return &TTSOpsBufferHeapTuple;
	}
	slim_next_slot.desc = desc;
	slim_next_slot.typeid = desc->tdtypeid;
	slim_next_slot.reads_values = info->reads_values;
	switch (info->options.null_bitmap)
	{
		case SLIM_NULL_BITMAP_FULL:
			return &SlimTTSOpsFull;
		case SLIM_NULL_BITMAP_COMPRESS:
			slim_next_slot.prefix_floor = info->prefix_floor;
			return &SlimTTSOpsCompress;
		default:
			return &SlimTTSOpsTruncate;
	}
}
