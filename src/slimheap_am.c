/*-------------------------------------------------------------------------
 *
 * slimheap_am.c
 *	  The slimheap table access method: heap's routine with slimheap's
 *	  tuple forming on every write path.
 *
 * Only the callbacks that form tuples are replaced (insert, speculative
 * insert, multi-insert, update, and the rewrite of CLUSTER / VACUUM FULL).
 * Rows are standard heap tuples, so every read path, visibility, WAL, HOT,
 * pruning, VACUUM and TOAST stay heap's own.  The two index-build callbacks
 * are wrapped because heap's implementation refuses to scan a relation whose
 * access method is not heap's own routine.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "executor/tuptable.h"
#include "fmgr.h"

#include "slimheap.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(slimheap_tableam_handler);

void		_PG_init(void);

static TableAmRoutine slim_routine;
static bool slim_routine_ready = false;

/*
 * Form the row held in slot, as the relation's options say, and hand the
 * tuple to the slot when it is a heap-tuple slot (what table_slot_create()
 * makes for slimheap tables, and what the executor's result slots are).
 *
 * After heap_insert() or heap_update() such a slot must answer for the stored
 * row, including the system columns RETURNING may ask for, which are read from
 * the header heap fills in; so the slot must hold the very tuple heap writes.
 * The tuple is formed in the slot's memory context and stored without the
 * copy ExecForceStoreHeapTuple() would make, which is what heap's own path
 * (materializing the slot) costs too.
 *
 * When the slot holds a tuple that stores every attribute (INSERT ... SELECT
 * from a table of the same layout, a row returned by a BEFORE trigger), only
 * its header is rewritten; otherwise the row is formed from its values.
 *
 * Other slots keep the values they hold; *kept is then false and the caller
 * frees the tuple once heap is done with it.
 */
static HeapTuple
slim_form_from_slot(Relation rel, TupleTableSlot *slot, bool *kept)
{
	/* first: building the cache entry may allocate in the current context */
	const SlimRelInfo *info = slim_get_relinfo(rel);
	HeapTuple	tuple;
	MemoryContext oldcxt = CurrentMemoryContext;
	HeapTuple	physical = NULL;

	*kept = TTS_IS_BUFFERTUPLE(slot) || TTS_IS_HEAPTUPLE(slot);
	if (*kept)
	{
		/* the slot may hold a stored tuple, e.g. of INSERT ... SELECT */
		physical = ((HeapTupleTableSlot *) slot)->tuple;
		if (physical != NULL &&
			HeapTupleHeaderGetNatts(physical->t_data) !=
			slot->tts_tupleDescriptor->natts)
			physical = NULL;
		MemoryContextSwitchTo(slot->tts_mcxt);
	}

	if (physical != NULL)
	{
		tuple = slim_trim_tuple(physical, info->options.null_bitmap,
								info->min_natts);
		if (tuple == NULL)
		{
			/*
			 * Stored as it is: what heap does, materializing the slot (a
			 * copy only if the tuple still lives in a shared buffer).
			 */
			MemoryContextSwitchTo(oldcxt);
			ExecMaterializeSlot(slot);
			return ((HeapTupleTableSlot *) slot)->tuple;
		}
	}
	else
	{
		slot_getallattrs(slot);
		tuple = slim_form_tuple(slot->tts_tupleDescriptor, slot->tts_values,
								slot->tts_isnull, info->options.null_bitmap,
								info->min_natts);
	}
	MemoryContextSwitchTo(oldcxt);

	if (!*kept)
		return tuple;

	if (TTS_IS_HEAPTUPLE(slot))
		ExecStoreHeapTuple(tuple, slot, true);
	else
	{
		BufferHeapTupleTableSlot *bslot = (BufferHeapTupleTableSlot *) slot;

		/* drops what the slot held: values, tuple and buffer pin */
		ExecClearTuple(slot);
		bslot->base.tuple = tuple;
		bslot->base.off = 0;
		slot->tts_flags &= ~TTS_FLAG_EMPTY;
		slot->tts_flags |= TTS_FLAG_SHOULDFREE;
	}
	return tuple;
}

static void
slim_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
				  int options, BulkInsertState bistate)
{
	bool		kept;
	HeapTuple	tuple = slim_form_from_slot(rel, slot, &kept);

	slot->tts_tableOid = RelationGetRelid(rel);
	tuple->t_tableOid = slot->tts_tableOid;

	heap_insert(rel, tuple, cid, options, bistate);
	ItemPointerCopy(&tuple->t_self, &slot->tts_tid);

	if (!kept)
		heap_freetuple(tuple);
}

static void
slim_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
							  CommandId cid, int options,
							  BulkInsertState bistate, uint32 specToken)
{
	bool		kept;
	HeapTuple	tuple = slim_form_from_slot(rel, slot, &kept);

	slot->tts_tableOid = RelationGetRelid(rel);
	tuple->t_tableOid = slot->tts_tableOid;

	HeapTupleHeaderSetSpeculativeToken(tuple->t_data, specToken);
	heap_insert(rel, tuple, cid, options | HEAP_INSERT_SPECULATIVE, bistate);
	ItemPointerCopy(&tuple->t_self, &slot->tts_tid);

	if (!kept)
		heap_freetuple(tuple);
}

/*
 * heap_multi_insert() takes slots and fetches a heap tuple from each, so put
 * the slim tuple into each slot first.  COPY and batched inserts pass slots
 * made by table_slot_create(), which are heap-tuple slots; any other kind of
 * slot would only hold values, so such a batch goes in one row at a time.
 */
static void
slim_multi_insert(Relation rel, TupleTableSlot **slots, int ntuples,
				  CommandId cid, int options, BulkInsertState bistate)
{
	int			i;

	for (i = 0; i < ntuples; i++)
	{
		if (!TTS_IS_BUFFERTUPLE(slots[i]) && !TTS_IS_HEAPTUPLE(slots[i]))
		{
			for (i = 0; i < ntuples; i++)
				slim_tuple_insert(rel, slots[i], cid, options, bistate);
			return;
		}
	}

	for (i = 0; i < ntuples; i++)
	{
		bool		kept;

		(void) slim_form_from_slot(rel, slots[i], &kept);
		Assert(kept);
	}
	heap_multi_insert(rel, slots, ntuples, cid, options, bistate);
}

static TM_Result
slim_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
				  CommandId cid, Snapshot snapshot, Snapshot crosscheck,
				  bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
#if PG_VERSION_NUM >= 160000
				  TU_UpdateIndexes *update_indexes
#else
				  bool *update_indexes
#endif
)
{
	bool		kept;
	HeapTuple	tuple = slim_form_from_slot(rel, slot, &kept);
	TM_Result	result;

	slot->tts_tableOid = RelationGetRelid(rel);
	tuple->t_tableOid = slot->tts_tableOid;

#if PG_VERSION_NUM >= 160000
	result = heap_update(rel, otid, tuple, cid, crosscheck, wait, tmfd,
						 lockmode, update_indexes);
#else
	result = heap_update(rel, otid, tuple, cid, crosscheck, wait, tmfd,
						 lockmode);
	/* a HOT update needs no new index entries */
	*update_indexes = result == TM_Ok && !HeapTupleIsHeapOnly(tuple);
#endif
	ItemPointerCopy(&tuple->t_self, &slot->tts_tid);

	if (!kept)
		heap_freetuple(tuple);
	return result;
}

/*
 * heap's index build scans read the table with heap_getnext(), which refuses
 * relations whose rd_tableam is not heap's routine.  Our rows are heap rows,
 * so let heap's code scan them as heap for the duration of the call.
 */
static double
slim_index_build_range_scan(Relation table_rel, Relation index_rel,
							struct IndexInfo *index_info, bool allow_sync,
							bool anyvisible, bool progress,
							BlockNumber start_blockno, BlockNumber numblocks,
							IndexBuildCallback callback, void *callback_state,
							TableScanDesc scan)
{
	const TableAmRoutine *heap_routine = GetHeapamTableAmRoutine();
	const TableAmRoutine *saved = table_rel->rd_tableam;
	double		ntuples;

	table_rel->rd_tableam = heap_routine;
	PG_TRY();
	{
		ntuples = heap_routine->index_build_range_scan(table_rel, index_rel,
													   index_info, allow_sync,
													   anyvisible, progress,
													   start_blockno,
													   numblocks, callback,
													   callback_state, scan);
	}
	PG_FINALLY();
	{
		table_rel->rd_tableam = saved;
	}
	PG_END_TRY();

	return ntuples;
}

static void
slim_index_validate_scan(Relation table_rel, Relation index_rel,
						 struct IndexInfo *index_info, Snapshot snapshot,
						 struct ValidateIndexState *state)
{
	const TableAmRoutine *heap_routine = GetHeapamTableAmRoutine();
	const TableAmRoutine *saved = table_rel->rd_tableam;

	table_rel->rd_tableam = heap_routine;
	PG_TRY();
	{
		heap_routine->index_validate_scan(table_rel, index_rel, index_info,
										  snapshot, state);
	}
	PG_FINALLY();
	{
		table_rel->rd_tableam = saved;
	}
	PG_END_TRY();
}

static void
slim_init_routine(void)
{
	if (slim_routine_ready)
		return;

	slim_routine = *GetHeapamTableAmRoutine();
	slim_routine.tuple_insert = slim_tuple_insert;
	slim_routine.tuple_insert_speculative = slim_tuple_insert_speculative;
	slim_routine.multi_insert = slim_multi_insert;
	slim_routine.tuple_update = slim_tuple_update;
	slim_routine.relation_copy_for_cluster = slim_relation_copy_for_cluster;
	slim_routine.index_build_range_scan = slim_index_build_range_scan;
	slim_routine.index_validate_scan = slim_index_validate_scan;
	slim_routine_ready = true;
}

const TableAmRoutine *
slim_get_routine(void)
{
	slim_init_routine();
	return &slim_routine;
}

bool
slim_is_slimheap_relation(Relation rel)
{
	return rel->rd_tableam == &slim_routine;
}

Datum
slimheap_tableam_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(slim_get_routine());
}

void
_PG_init(void)
{
	slim_init_routine();
	slim_options_init(slim_get_routine());
}
