/*-------------------------------------------------------------------------
 *
 * slim_cluster.c
 *	  CLUSTER and VACUUM FULL for slimheap: copy the live rows of a table
 *	  into a new file, re-forming each row in slimheap's form.
 *
 * heap's implementation re-forms rows with heap_form_tuple(), which would
 * turn every slim row into a full one.  This one uses the same public
 * building blocks (rewriteheap.h, so that update chains, visibility and
 * freezing are handled exactly as heap does, and the tuplesort cluster API)
 * and slimheap's tuple former.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_cluster.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/relscan.h"
#include "access/rewriteheap.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "commands/progress.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"
#include "utils/tuplesort.h"

#include "slim_am.h"
#include "slim_compat.h"
#include "slim_heap_slot.h"
#include "slim_tail.h"
#include "slimheap.h"

/* What a rewrite needs while it copies rows. */
typedef struct SlimRewrite
{
	Relation	old_rel;
	Relation	new_rel;
	RewriteState rwstate;
	SlimNullBitmap mode;
	int			missing_floor;
	const SlimFloor *prefix_floor;
	bool		may_copy;		/* rows may be copied as they are stored */
	int			old_missing_floor;	/* the old relation's fast-default floor */
	Datum	   *values;
	bool	   *isnull;
} SlimRewrite;

/*
 * Can a row be copied as it is stored?  It must read the same after the
 * rewrite, which drops the values of dropped columns and may clear the
 * fast defaults (so each one must be stored), and already have the form
 * the new relation's former would give it (slim_form_is_current()).
 */
static bool
slim_rewrite_copies(SlimRewrite *rw, HeapTuple tuple)
{
	TupleDesc	desc = RelationGetDescr(rw->new_rel);
	HeapTupleHeader td = tuple->t_data;
	int			natts = HeapTupleHeaderGetNatts(td);

	if (!rw->may_copy ||
		!slim_form_is_current(tuple, desc, rw->mode, rw->missing_floor,
							  rw->prefix_floor))
		return false;
	if (natts >= rw->old_missing_floor)
		return true;
	/* a tail row stores attributes past its natts: up to its tail's end */
	return SlimHeaderHasTail(td) &&
		slim_tail_natts(td, desc) >= rw->old_missing_floor;
}

/*
 * May the rows of a rewrite from old_desc to new_desc be copied as they
 * are stored?  Not when the layouts differ or a dropped column may still
 * hold a value (forming the row again drops it); the rows decide the rest.
 */
static bool
slim_rewrite_may_copy(TupleDesc old_desc, TupleDesc new_desc)
{
	int			i;

	if (old_desc->natts != new_desc->natts)
		return false;
	for (i = 0; i < new_desc->natts; i++)
	{
		if (TupleDescAttr(new_desc, i)->attisdropped)
			return false;
	}
	return true;
}

/*
 * Copy one row into the new relation, in the new relation's form: as it is
 * stored when it has that form, else formed again from its values.
 */
static void
slim_rewrite_row(SlimRewrite *rw, HeapTuple old_tuple)
{
	TupleDesc	old_desc = RelationGetDescr(rw->old_rel);
	TupleDesc	new_desc = RelationGetDescr(rw->new_rel);
	HeapTuple	new_tuple;
	int			i;

	if (slim_rewrite_copies(rw, old_tuple))
	{
		/* rewrite_heap_tuple() writes the copy's header: not the page's */
		new_tuple = heap_copytuple(old_tuple);
		rewrite_heap_tuple(rw->rwstate, old_tuple, new_tuple);
		heap_freetuple(new_tuple);
		return;
	}

	slim_deform_tuple(old_tuple, old_desc, rw->values, rw->isnull);

	/* dropped columns keep their slot in the descriptor but lose the data */
	for (i = 0; i < new_desc->natts; i++)
	{
		if (TupleDescAttr(new_desc, i)->attisdropped)
			rw->isnull[i] = true;
	}

	slim_rows_formed++;
	new_tuple = slim_form_tuple(new_desc, rw->values, rw->isnull, rw->mode,
								rw->missing_floor,
								slim_floor_row(rw->prefix_floor, rw->isnull,
												rw->missing_floor));
	rewrite_heap_tuple(rw->rwstate, old_tuple, new_tuple);
	heap_freetuple(new_tuple);
}

/*
 * Does a row found by the scan go into the new relation?  Counts it as heap
 * does for VACUUM FULL's and CLUSTER's report.
 */
static bool
slim_rewrite_keeps_row(Relation old_rel, HeapTuple tuple, Buffer buf,
					   TransactionId OldestXmin, double *tups_recently_dead)
{
	bool		keep;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	switch (HeapTupleSatisfiesVacuum(tuple, OldestXmin, buf))
	{
		case HEAPTUPLE_DEAD:
			keep = false;
			break;
		case HEAPTUPLE_RECENTLY_DEAD:
			*tups_recently_dead += 1;
			keep = true;
			break;
		case HEAPTUPLE_LIVE:
			keep = true;
			break;
		case HEAPTUPLE_INSERT_IN_PROGRESS:

			/*
			 * We hold an exclusive lock on the table, so only our own
			 * transaction can have inserted it; copy it either way.
			 */
			if (!IsSystemRelation(old_rel) &&
				!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data)))
				elog(WARNING, "concurrent insert in progress within table \"%s\"",
					 RelationGetRelationName(old_rel));
			keep = true;
			break;
		case HEAPTUPLE_DELETE_IN_PROGRESS:
			if (!IsSystemRelation(old_rel) &&
				!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetUpdateXid(tuple->t_data)))
				elog(WARNING, "concurrent delete in progress within table \"%s\"",
					 RelationGetRelationName(old_rel));
			*tups_recently_dead += 1;
			keep = true;
			break;
		default:
			elog(ERROR, "unexpected HeapTupleSatisfiesVacuum result");
			keep = false;		/* keep compiler quiet */
			break;
	}
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);

	return keep;
}

void
slim_relation_copy_for_cluster(Relation OldHeap, Relation NewHeap,
							   Relation OldIndex, bool use_sort,
							   TransactionId OldestXmin,
							   SLIM_COPY_FOR_CLUSTER_SNAPSHOT_PARAM
							   TransactionId *xid_cutoff,
							   MultiXactId *multi_cutoff,
							   double *num_tuples,
							   double *tups_vacuumed,
							   double *tups_recently_dead)
{
	const SlimRelInfo *new_info = slim_get_relinfo(NewHeap);
	SlimRewrite rw;
	Tuplesortstate *tuplesort = NULL;
	IndexScanDesc index_scan = NULL;
	TableScanDesc table_scan = NULL;
	TupleTableSlot *slot;

	rw.old_rel = OldHeap;
	rw.new_rel = NewHeap;
	rw.mode = new_info->options.null_bitmap;
	/* heap's rewrite logs pages, which logical decoding never reads (C3) */
	rw.prefix_floor = new_info->rewrite_prefix_floor;

	/*
	 * The indexes are rebuilt from the new file while the old table's
	 * missing values are still in the catalog (RelationClearMissing() comes
	 * later), so honour them as well as the new relation's.
	 */
	rw.missing_floor = Max(new_info->missing_floor,
					   slim_rewrite_floor(OldHeap, NewHeap,
										  &new_info->options));
	rw.old_missing_floor = slim_missing_floor(RelationGetDescr(OldHeap));
	rw.may_copy = slim_rewrite_may_copy(RelationGetDescr(OldHeap),
										RelationGetDescr(NewHeap));
	rw.values = palloc(RelationGetDescr(NewHeap)->natts * sizeof(Datum));
	rw.isnull = palloc(RelationGetDescr(NewHeap)->natts * sizeof(bool));
	rw.rwstate = begin_heap_rewrite(OldHeap, NewHeap, OldestXmin,
									*xid_cutoff, *multi_cutoff);

	if (use_sort)
		tuplesort = tuplesort_begin_cluster(RelationGetDescr(OldHeap),
											OldIndex, maintenance_work_mem,
											NULL, TUPLESORT_NONE);

	/*
	 * Scan with SnapshotAny: recently dead rows must be copied too, and
	 * HeapTupleSatisfiesVacuum() decides which rows go.
	 */
	if (OldIndex != NULL && !use_sort)
	{
		pgstat_progress_update_param(SLIM_PROGRESS_PHASE,
									 SLIM_PROGRESS_PHASE_INDEX_SCAN_HEAP);
		pgstat_progress_update_param(SLIM_PROGRESS_INDEX_RELID,
									 RelationGetRelid(OldIndex));
		index_scan = slim_index_beginscan(OldHeap, OldIndex, SnapshotAny,
										  0, 0);
		index_rescan(index_scan, NULL, 0, NULL, 0);
	}
	else
	{
		pgstat_progress_update_param(SLIM_PROGRESS_PHASE,
									 SLIM_PROGRESS_PHASE_SEQ_SCAN_HEAP);
		table_scan = slim_table_beginscan(OldHeap, SnapshotAny, 0, NULL);
		pgstat_progress_update_param(SLIM_PROGRESS_TOTAL_HEAP_BLKS,
									 ((HeapScanDesc) table_scan)->rs_nblocks);
	}

	/* a buffer-heap slot: we need the on-page tuple and its buffer */
	slot = slim_stored_form_slot(RelationGetDescr(OldHeap));

	for (;;)
	{
		HeapTuple	tuple;
		Buffer		buf;

		CHECK_FOR_INTERRUPTS();

		if (index_scan != NULL)
		{
			if (!index_getnext_slot(index_scan, ForwardScanDirection, slot))
				break;
			/* no scan keys were given, so there is nothing to recheck */
			if (index_scan->xs_recheck)
				elog(ERROR, "CLUSTER does not support lossy index conditions");
		}
		else
		{
			HeapScanDesc hscan = (HeapScanDesc) table_scan;

			if (!table_scan_getnextslot(table_scan, ForwardScanDirection, slot))
				break;
			/* report progress as blocks from the start of the scan */
			pgstat_progress_update_param(SLIM_PROGRESS_HEAP_BLKS_SCANNED,
										 (hscan->rs_cblock + hscan->rs_nblocks -
										  hscan->rs_startblock) %
										 hscan->rs_nblocks + 1);
		}

		tuple = ExecFetchSlotHeapTuple(slot, false, NULL);
		buf = ((BufferHeapTupleTableSlot *) slot)->buffer;

		if (!slim_rewrite_keeps_row(OldHeap, tuple, buf, OldestXmin,
									tups_recently_dead))
		{
			*tups_vacuumed += 1;
			/* the rewrite module tracks dead members of update chains */
			if (rewrite_heap_dead_tuple(rw.rwstate, tuple))
			{
				/* an earlier recently-dead row turned out to be dead */
				*tups_vacuumed += 1;
				*tups_recently_dead -= 1;
			}
			continue;
		}

		*num_tuples += 1;
		if (tuplesort != NULL)
		{
			tuplesort_putheaptuple(tuplesort, tuple);
			pgstat_progress_update_param(SLIM_PROGRESS_HEAP_TUPLES_SCANNED,
										 *num_tuples);
		}
		else
		{
			slim_rewrite_row(&rw, tuple);
			pgstat_progress_update_param(SLIM_PROGRESS_HEAP_TUPLES_SCANNED,
										 *num_tuples);
			pgstat_progress_update_param(SLIM_PROGRESS_HEAP_TUPLES_WRITTEN,
										 *num_tuples);
		}
	}

	if (index_scan != NULL)
		index_endscan(index_scan);
	if (table_scan != NULL)
	{
		pgstat_progress_update_param(SLIM_PROGRESS_HEAP_BLKS_SCANNED,
									 ((HeapScanDesc) table_scan)->rs_nblocks);
		table_endscan(table_scan);
	}
	ExecDropSingleTupleTableSlot(slot);

	if (tuplesort != NULL)
	{
		double		written = 0;

		pgstat_progress_update_param(SLIM_PROGRESS_PHASE,
									 SLIM_PROGRESS_PHASE_SORT_TUPLES);
		tuplesort_performsort(tuplesort);
		pgstat_progress_update_param(SLIM_PROGRESS_PHASE,
									 SLIM_PROGRESS_PHASE_WRITE_NEW_HEAP);

		for (;;)
		{
			HeapTuple	tuple;

			CHECK_FOR_INTERRUPTS();
			tuple = tuplesort_getheaptuple(tuplesort, true);
			if (tuple == NULL)
				break;
			slim_rewrite_row(&rw, tuple);
			written += 1;
			pgstat_progress_update_param(SLIM_PROGRESS_HEAP_TUPLES_WRITTEN,
										 written);
		}
		tuplesort_end(tuplesort);
	}

	end_heap_rewrite(rw.rwstate);
	pfree(rw.values);
	pfree(rw.isnull);
}
