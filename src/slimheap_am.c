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
 * heap just filled in.  Those slots get the tuple; for others the values they
 * hold are the row, and the tuple is freed here.
 *
 * The tuple goes into the slot only *after* heap has stored it:
 * ExecForceStoreHeapTuple() on a buffer-heap slot (what table_slot_create()
 * makes, so what INSERT, UPDATE and ON CONFLICT pass) stores a copy and
 * pfree()s the tuple it was given when told to take ownership, so storing it
 * before heap_insert() handed heap freed memory; and only a copy taken after
 * the insertion carries the xmin, cmin and TID heap wrote into the header.
 */
static bool
slim_slot_keeps_tuple(TupleTableSlot *slot)
{
	return TTS_IS_BUFFERTUPLE(slot) || TTS_IS_HEAPTUPLE(slot);
}

static void
slim_slot_take_stored(Relation rel, TupleTableSlot *slot, HeapTuple tuple)
{
	ItemPointerData tid = tuple->t_self;

	if (slim_slot_keeps_tuple(slot))
		ExecForceStoreHeapTuple(tuple, slot, true);
	else
		heap_freetuple(tuple);
	/* storing clears the slot, TID and table included */
	slot->tts_tableOid = RelationGetRelid(rel);
	ItemPointerCopy(&tid, &slot->tts_tid);
}

static void
slim_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
				  int options, BulkInsertState bistate)
{
	HeapTuple	tuple = slim_form_from_slot(rel, slot);

	tuple->t_tableOid = RelationGetRelid(rel);
	heap_insert(rel, tuple, cid, options, bistate);
	slim_slot_take_stored(rel, slot, tuple);
}

static void
slim_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
							  CommandId cid, int options,
							  BulkInsertState bistate, uint32 specToken)
{
	HeapTuple	tuple = slim_form_from_slot(rel, slot);

	tuple->t_tableOid = RelationGetRelid(rel);
	HeapTupleHeaderSetSpeculativeToken(tuple->t_data, specToken);
	heap_insert(rel, tuple, cid, options | HEAP_INSERT_SPECULATIVE, bistate);
	slim_slot_take_stored(rel, slot, tuple);
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
	TM_Result	result;

	tuple->t_tableOid = RelationGetRelid(rel);

#if PG_VERSION_NUM >= 160000
	result = heap_update(rel, otid, tuple, cid, crosscheck, wait, tmfd,
						 lockmode, update_indexes);
#else
	result = heap_update(rel, otid, tuple, cid, crosscheck, wait, tmfd,
						 lockmode);
	/* a HOT update needs no new index entries */
	*update_indexes = result == TM_Ok && !HeapTupleIsHeapOnly(tuple);
#endif
	slim_slot_take_stored(rel, slot, tuple);
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
