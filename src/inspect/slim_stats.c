/*-------------------------------------------------------------------------
 *
 * slim_stats.c
 *	  slimheap.stats(regclass): the live and dead rows of a slimheap table,
 *	  per row form, against the bytes the same rows take in heap's layout.
 *
 * pgstattuple refuses tables whose access method is not heap, so slimheap
 * brings its own.  Heap's size of a row comes from heap's former
 * (heap_form_tuple()), and the truncate form a compressed-tail row would
 * otherwise have from slimheap's (slim_form_tuple()), never from a second
 * copy of their layout rules.  docs/inspect.md describes the columns.
 *
 * Pages are read through slim_inspect_read_page(): a copy taken under the
 * buffer's share lock, and each row checked with verify()'s rules before it
 * is deformed, with an error naming the first damaged one.  What the loop
 * needs of the relation is read before it, so that no lock is waited for
 * while a buffer lock is held.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/inspect/slim_stats.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "slimheap.h"
#include "slim_inspect.h"
#include "slim_page_check.h"
#include "slim_tail.h"
#include "slim_verify.h"

PG_FUNCTION_INFO_V1(slimheap_stats);

#define SLIM_STATS_COLUMNS		19
#define SLIM_STATS_COLUMNS_1_2	17

typedef struct SlimStats
{
	int64		pages;
	int64		live_rows;
	int64		live_bytes;
	int64		dead_rows;
	int64		dead_bytes;
	int64		free_bytes;
	int64		form_rows[SLIM_NUM_ROW_FORMS];
	int64		form_bytes[SLIM_NUM_ROW_FORMS];
	int64		heap_layout_bytes;
	int64		tail_saved_bytes;	/* truncate form minus tail form */
	int64		relayable_rows; /* rows compact would store shorter */
	int64		relayable_saved_bytes;
} SlimStats;

/*
 * The bytes heap_form_tuple() would produce for the row: the stored values
 * read back through the table's descriptor, which includes the fast defaults
 * of columns past the row's natts (heap would store those as data) and keeps
 * what dropped columns still hold (heap keeps that too until a rewrite).
 * The row is deformed into values/isnull, which the caller may use further.
 * The row must have passed verify()'s checks (slim_inspect_row()).
 */
static Size
slim_heap_layout_len(HeapTuple tuple, TupleDesc desc, Datum *values,
					 bool *isnull, int *stored_natts)
{
	HeapTuple	heap_tuple;
	Size		len;

	/* heap's deforming would read a tail row as its prefix alone */
	*stored_natts = slim_deform_tuple(tuple, desc, values, isnull);
	heap_tuple = heap_form_tuple(desc, values, isnull);
	len = heap_tuple->t_len;
	heap_freetuple(heap_tuple);
	return len;
}

/*
 * The bytes the truncate form of a compressed-tail row takes: what the
 * tail saves, and what the row would take after a switch to truncate and a
 * rewrite.  values/isnull hold the row, deformed.
 */
static Size
slim_truncate_len(TupleDesc desc, Datum *values, bool *isnull, int missing_floor)
{
	HeapTuple	formed;
	Size		len;

	formed = slim_form_tuple(desc, values, isnull, SLIM_NULL_BITMAP_TRUNCATE,
							 missing_floor, desc->natts);
	len = formed->t_len;
	heap_freetuple(formed);
	return len;
}

/*
 * What stats() keeps while it reads the pages: the relation's facts, read
 * once before the first page, and scratch for one row.
 */
typedef struct SlimStatsScan
{
	Relation	rel;
	int			missing_floor;		/* the T1 floor of the truncate form */
	bool		relays;			/* compact re-lays rows of this table */
	SlimNullBitmap mode;		/* its mode, and its floor for the rows */
	const SlimFloor *prefix_floor;
	SlimVerifyState *checker;		/* verify()'s checks of each row */
	Datum	   *values;
	bool	   *isnull;
} SlimStatsScan;

/*
 * Whether compact would store the row (len bytes; values/isnull, deformed,
 * its stored_natts attributes) shorter, in the table's mode with its
 * floors now, as slim_relayout_form() forms it: the bytes of the row it
 * saves (as live_bytes counts them), or 0.
 * Overwrites isnull past the stored attributes.
 */
static int64
slim_relayable_saved(SlimStatsScan *scan, Size len, Datum *values,
					 bool *isnull, int stored_natts)
{
	TupleDesc	desc = RelationGetDescr(scan->rel);
	HeapTuple	formed;
	int64		saved;
	int			i;

	for (i = stored_natts; i < desc->natts; i++)
		isnull[i] = true;
	formed = slim_form_tuple(desc, values, isnull, scan->mode,
							 Min(scan->missing_floor, stored_natts),
							 slim_floor_row(scan->prefix_floor, isnull,
											Min(scan->missing_floor, stored_natts)));
	/* compact re-lays a row that takes less room on the page */
	saved = MAXALIGN(formed->t_len) < MAXALIGN(len) ?
		(int64) len - (int64) formed->t_len : 0;
	heap_freetuple(formed);
	return saved;
}

/*
 * Count one page, read into a private copy by slim_inspect_read_page().
 */
static void
slim_stats_page(SlimStatsScan *scan, SlimInspectPage *page, SlimStats *stats)
{
	TupleDesc	desc = RelationGetDescr(scan->rel);
	OffsetNumber off;

	if (page->is_new)
	{
		/* an extended page nobody has initialized yet: all of it is free */
		stats->free_bytes += BLCKSZ - SizeOfPageHeaderData;
		return;
	}
	stats->free_bytes += PageGetHeapFreeSpace((Page) page->copy.data);

	for (off = FirstOffsetNumber; off <= page->maxoff; off++)
	{
		HeapTupleData tuple;
		Size		len;
		SlimRowForm form;
		int			stored_natts;
		int64		saved;

		if (page->items[off] == SLIM_ITEM_NO_ROW)
			continue;
		tuple.t_data = slim_inspect_row(scan->checker, page, off, &len);
		tuple.t_len = len;
		tuple.t_tableOid = RelationGetRelid(scan->rel);
		ItemPointerSet(&tuple.t_self, page->blkno, off);

		if (page->items[off] == SLIM_ITEM_DEAD)
		{
			stats->dead_rows++;
			stats->dead_bytes += tuple.t_len;
			continue;
		}

		form = slim_row_form(tuple.t_data, desc->natts);
		stats->live_rows++;
		stats->live_bytes += tuple.t_len;
		stats->form_rows[form]++;
		stats->form_bytes[form] += tuple.t_len;
		stats->heap_layout_bytes += slim_heap_layout_len(&tuple, desc,
														 scan->values,
														 scan->isnull,
														 &stored_natts);
		if (form == SLIM_ROW_TAIL)
			stats->tail_saved_bytes +=
				(int64) slim_truncate_len(desc, scan->values, scan->isnull,
										  scan->missing_floor) -
				(int64) tuple.t_len;
		if (!scan->relays || stored_natts == 0)
			continue;
		saved = slim_relayable_saved(scan, tuple.t_len, scan->values,
									 scan->isnull, stored_natts);
		if (saved > 0)
		{
			stats->relayable_rows++;
			stats->relayable_saved_bytes += saved;
		}
	}
}

Datum
slimheap_stats(PG_FUNCTION_ARGS)
{
	Oid			relid = slim_inspect_relid_arg(fcinfo, 0, "stats");
	Relation	rel;
	TupleDesc	result_desc;
	BufferAccessStrategy bstrategy;
	Snapshot	snapshot;
	SlimStats	stats;
	SlimStatsScan scan;
	SlimInspectPage *page;
	BlockNumber nblocks;
	BlockNumber blkno;
	MemoryContext row_cxt;
	MemoryContext old_cxt;
	Datum		result[SLIM_STATS_COLUMNS];
	bool		result_null[SLIM_STATS_COLUMNS];
	int			i;

	if (get_call_result_type(fcinfo, NULL, &result_desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	/* 1.2 declared the columns up to tail_saved_bytes */
	if (result_desc->natts != lengthof(result) &&
		result_desc->natts != SLIM_STATS_COLUMNS_1_2)
		elog(ERROR, "slimheap.stats() is declared with %d columns, expected %d",
			 result_desc->natts, (int) lengthof(result));

	rel = slim_inspect_open(relid, "stats", SLIM_TARGET_SLIMHEAP);

	memset(&stats, 0, sizeof(stats));
	scan.rel = rel;
	/* may build the relcache's slimheap info, which may wait for locks */
	scan.missing_floor = slim_get_relinfo(rel)->missing_floor;
	scan.mode = slim_get_relinfo(rel)->options.null_bitmap;
	scan.prefix_floor = slim_get_relinfo(rel)->rewrite_prefix_floor;
	scan.relays = scan.mode != SLIM_NULL_BITMAP_FULL;
	scan.checker = slim_verify_checker(rel);
	scan.values = palloc(Max(RelationGetDescr(rel)->natts, 1) * sizeof(Datum));
	scan.isnull = palloc(Max(RelationGetDescr(rel)->natts, 1) * sizeof(bool));
	page = palloc(sizeof(SlimInspectPage));
	bstrategy = GetAccessStrategy(BAS_BULKREAD);
	snapshot = slim_inspect_snapshot();
	row_cxt = AllocSetContextCreate(CurrentMemoryContext,
									"slimheap stats rows",
									ALLOCSET_DEFAULT_SIZES);

	nblocks = RelationGetNumberOfBlocks(rel);
	for (blkno = 0; blkno < nblocks; blkno++)
	{
		CHECK_FOR_INTERRUPTS();

		slim_inspect_read_page(rel, blkno, bstrategy, snapshot, page);
		old_cxt = MemoryContextSwitchTo(row_cxt);
		slim_stats_page(&scan, page, &stats);
		MemoryContextSwitchTo(old_cxt);
		MemoryContextReset(row_cxt);
		stats.pages++;
	}

	FreeAccessStrategy(bstrategy);
	relation_close(rel, AccessShareLock);

	memset(result_null, 0, sizeof(result_null));
	i = 0;
	result[i++] = Int64GetDatum(stats.pages * BLCKSZ);
	result[i++] = Int64GetDatum(stats.pages);
	result[i++] = Int64GetDatum(stats.live_rows);
	result[i++] = Int64GetDatum(stats.live_bytes);
	result[i++] = Int64GetDatum(stats.dead_rows);
	result[i++] = Int64GetDatum(stats.dead_bytes);
	result[i++] = Int64GetDatum(stats.free_bytes);
	result[i++] = Int64GetDatum(stats.form_rows[SLIM_ROW_FULL]);
	result[i++] = Int64GetDatum(stats.form_bytes[SLIM_ROW_FULL]);
	result[i++] = Int64GetDatum(stats.form_rows[SLIM_ROW_TRUNCATED]);
	result[i++] = Int64GetDatum(stats.form_bytes[SLIM_ROW_TRUNCATED]);
	result[i++] = Int64GetDatum(stats.heap_layout_bytes);
	result[i++] = Int64GetDatum(stats.heap_layout_bytes - stats.live_bytes);
	result[i] = slim_percent(stats.heap_layout_bytes - stats.live_bytes,
							 stats.heap_layout_bytes, &result_null[i]);
	i++;
	/* added with the compress mode: after the columns that were there */
	result[i++] = Int64GetDatum(stats.form_rows[SLIM_ROW_TAIL]);
	result[i++] = Int64GetDatum(stats.form_bytes[SLIM_ROW_TAIL]);
	result[i++] = Int64GetDatum(stats.tail_saved_bytes);
	/* 1.3: what compact would re-lay, and save */
	result[i++] = Int64GetDatum(stats.relayable_rows);
	result[i++] = Int64GetDatum(stats.relayable_saved_bytes);
	Assert(i == lengthof(result));

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(result_desc, result,
													  result_null)));
}

