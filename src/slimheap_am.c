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
 * Form the row held in slot, as the relation's options say.
 */
static HeapTuple
slim_form_from_slot(Relation rel, TupleTableSlot *slot)
{
	slot_getallattrs(slot);
	return slim_form_tuple_for_rel(rel, slot->tts_tupleDescriptor,
								   slot->tts_values, slot->tts_isnull);
}

/*
 * After heap_insert() or heap_update() the slot must answer for the stored
 * row: its TID and, for heap-tuple slots (the executor's result slots), the
 * system columns RETURNING may ask for, which are read from the tuple header
 * heap just filled in.  Those slots take ownership of the tuple; for others
 * the values they hold are the row, and the tuple is freed by the caller.
 */
static bool
slim_slot_keeps_tuple(TupleTableSlot *slot)
{
	return TTS_IS_BUFFERTUPLE(slot) || TTS_IS_HEAPTUPLE(slot);
}

/*
 * Give a freshly formed tuple to a slot that keeps tuples, and return the
 * tuple heap must write: the slot's own.  ExecForceStoreHeapTuple() keeps a
 * heap-tuple slot's tuple as it is, but gives a buffer-heap slot (what
 * table_slot_create() makes for heap-like tables) a copy and frees the
 * original, so the formed tuple must not be used after it.
 */
static HeapTuple
slim_store_in_slot(HeapTuple tuple, TupleTableSlot *slot)
{
	ExecForceStoreHeapTuple(tuple, slot, true);
	return ExecFetchSlotHeapTuple(slot, false, NULL);
}

static void
slim_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
				  int options, BulkInsertState bistate)
{
	HeapTuple	tuple = slim_form_from_slot(rel, slot);
	bool		keep = slim_slot_keeps_tuple(slot);

	if (keep)
		tuple = slim_store_in_slot(tuple, slot);
	slot->tts_tableOid = RelationGetRelid(rel);
	tuple->t_tableOid = slot->tts_tableOid;

	heap_insert(rel, tuple, cid, options, bistate);
	ItemPointerCopy(&tuple->t_self, &slot->tts_tid);

	if (!keep)
		heap_freetuple(tuple);
}

static void
slim_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
							  CommandId cid, int options,
							  BulkInsertState bistate, uint32 specToken)
{
	HeapTuple	tuple = slim_form_from_slot(rel, slot);
	bool		keep = slim_slot_keeps_tuple(slot);

	if (keep)
		tuple = slim_store_in_slot(tuple, slot);
	slot->tts_tableOid = RelationGetRelid(rel);
	tuple->t_tableOid = slot->tts_tableOid;

	HeapTupleHeaderSetSpeculativeToken(tuple->t_data, specToken);
	heap_insert(rel, tuple, cid, options | HEAP_INSERT_SPECULATIVE, bistate);
	ItemPointerCopy(&tuple->t_self, &slot->tts_tid);

	if (!keep)
		heap_freetuple(tuple);
}

/*
 * heap_multi_insert() takes slots and fetches a heap tuple from each, so put
 * the slim tuple into each slot first.  COPY and batched inserts pass slots
 * made by table_slot_create(), which are heap-tuple slots; any other slot
 * would deform the tuple again, which is correct but loses the slim form, so
 * those go through one at a time.
 */
static void
slim_multi_insert(Relation rel, TupleTableSlot **slots, int ntuples,
				  CommandId cid, int options, BulkInsertState bistate)
{
	int			i;

	for (i = 0; i < ntuples; i++)
	{
		if (!slim_slot_keeps_tuple(slots[i]))
		{
			for (i = 0; i < ntuples; i++)
				slim_tuple_insert(rel, slots[i], cid, options, bistate);
			return;
		}
	}

	for (i = 0; i < ntuples; i++)
	{
		HeapTuple	tuple = slim_form_from_slot(rel, slots[i]);

		ExecForceStoreHeapTuple(tuple, slots[i], true);
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
	HeapTuple	tuple = slim_form_from_slot(rel, slot);
	bool		keep = slim_slot_keeps_tuple(slot);
	TM_Result	result;

	if (keep)
		tuple = slim_store_in_slot(tuple, slot);
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

	if (!keep)
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
	slim_options_init();
}
