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

PG_FUNCTION_INFO_V1(slimheap_stats);

#define SLIM_STATS_COLUMNS		17

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
} SlimStats;

/*
 * The bytes heap_form_tuple() would produce for the row: the stored values
 * read back through the table's descriptor, which includes the fast defaults
 * of columns past the row's natts (heap would store those as data) and keeps
 * what dropped columns still hold (heap keeps that too until a rewrite).
 * The row is deformed into values/isnull, which the caller may use further.
 * A compressed-tail row must have passed slim_check_tail().
 */
static Size
slim_heap_layout_len(HeapTuple tuple, TupleDesc desc, Datum *values,
					 bool *isnull)
{
	HeapTuple	heap_tuple;
	Size		len;

	/* heap's deforming would read a tail row as its prefix alone */
	slim_deform_tuple(tuple, desc, values, isnull);
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
slim_truncate_len(TupleDesc desc, Datum *values, bool *isnull, int min_natts)
{
	HeapTuple	formed;
	Size		len;

	formed = slim_form_tuple(desc, values, isnull, SLIM_NULL_BITMAP_TRUNCATE,
							 min_natts, desc->natts);
	len = formed->t_len;
	heap_freetuple(formed);
	return len;
}

/*
 * Refuse an on-page item that does not hold a sound tuple header inside the
 * page: stats() reads the header and deforms the row.
 */
static void
slim_check_item(Relation rel, Page page, BlockNumber blkno, OffsetNumber off)
{
	ItemId		itemid = PageGetItemId(page, off);
	HeapTupleHeader td;
	SlimItemProblem item_problem;
	SlimHeaderProblem header_problem;
	SlimTailInfo tail;
	const char *tail_problem;

	item_problem = slim_check_item_bounds(itemid, SizeOfPageHeaderData, BLCKSZ);
	if (item_problem != SLIM_ITEM_SOUND)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("line pointer (%u,%u) of relation \"%s\" is corrupted",
						blkno, off, RelationGetRelationName(rel)),
				 errdetail("lp_off %u, lp_len %u: %s.", ItemIdGetOffset(itemid),
						   ItemIdGetLength(itemid),
						   slim_item_problem_text(item_problem)),
				 errhint("slimheap.page_items() shows the page.")));

	td = (HeapTupleHeader) PageGetItem(page, itemid);
	header_problem = slim_check_tuple_header(td, ItemIdGetLength(itemid),
											 RelationGetDescr(rel)->natts);
	if (header_problem != SLIM_HEADER_SOUND)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("row (%u,%u) of relation \"%s\" is corrupted",
						blkno, off, RelationGetRelationName(rel)),
				 errdetail("%s.", slim_header_problem_text(header_problem)),
				 errhint("slimheap.page_items() shows the page.")));

	/* a compressed tail is decoded below: it must lie within the item */
	tail_problem = slim_check_row_tail(td, ItemIdGetLength(itemid),
									   RelationGetDescr(rel), &tail);
	if (tail_problem != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("row (%u,%u) of relation \"%s\" is corrupted",
						blkno, off, RelationGetRelationName(rel)),
				 errdetail("Its compressed tail is invalid: %s.", tail_problem),
				 errhint("slimheap.page_items() shows the page; slimheap.verify() checks the table.")));
}

/*
 * Count one page.  The buffer is share-locked.
 */
static void
slim_stats_page(Relation rel, Buffer buf, Snapshot snapshot, SlimStats *stats,
				Datum *values, bool *isnull)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			min_natts = slim_get_relinfo(rel)->min_natts;
	BlockNumber blkno = BufferGetBlockNumber(buf);
	Page		page = BufferGetPage(buf);
	OffsetNumber maxoff;
	OffsetNumber off;

	if (PageIsNew(page))
	{
		/* an extended page nobody has initialized yet: all of it is free */
		stats->free_bytes += BLCKSZ - SizeOfPageHeaderData;
		return;
	}
	stats->free_bytes += PageGetHeapFreeSpace(page);

	maxoff = PageGetMaxOffsetNumber(page);
	for (off = FirstOffsetNumber; off <= maxoff; off = OffsetNumberNext(off))
	{
		ItemId		itemid = PageGetItemId(page, off);
		HeapTupleData tuple;
		SlimRowForm form;

		if (!ItemIdIsNormal(itemid))
			continue;
		slim_check_item(rel, page, blkno, off);

		tuple.t_data = (HeapTupleHeader) PageGetItem(page, itemid);
		tuple.t_len = ItemIdGetLength(itemid);
		tuple.t_tableOid = RelationGetRelid(rel);
		ItemPointerSet(&tuple.t_self, blkno, off);

		if (!HeapTupleSatisfiesVisibility(&tuple, snapshot, buf))
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
														 values, isnull);
		if (form == SLIM_ROW_TAIL)
			stats->tail_saved_bytes +=
				(int64) slim_truncate_len(desc, values, isnull, min_natts) -
				(int64) tuple.t_len;
	}
}

Datum
slimheap_stats(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel;
	TupleDesc	result_desc;
	BufferAccessStrategy bstrategy;
	Snapshot	snapshot;
	SlimStats	stats;
	BlockNumber nblocks;
	BlockNumber blkno;
	Datum	   *values;
	bool	   *isnull;
	MemoryContext row_cxt;
	MemoryContext old_cxt;
	Datum		result[SLIM_STATS_COLUMNS];
	bool		result_null[SLIM_STATS_COLUMNS];
	int			i;

	if (get_call_result_type(fcinfo, NULL, &result_desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (result_desc->natts != lengthof(result))
		elog(ERROR, "slimheap.stats() is declared with %d columns, expected %d",
			 result_desc->natts, (int) lengthof(result));

	rel = slim_inspect_open(relid, "stats", SLIM_TARGET_SLIMHEAP);

	memset(&stats, 0, sizeof(stats));
	values = palloc(RelationGetDescr(rel)->natts * sizeof(Datum));
	isnull = palloc(RelationGetDescr(rel)->natts * sizeof(bool));
	bstrategy = GetAccessStrategy(BAS_BULKREAD);
	snapshot = slim_inspect_snapshot();
	row_cxt = AllocSetContextCreate(CurrentMemoryContext,
									"slimheap stats rows",
									ALLOCSET_DEFAULT_SIZES);

	nblocks = RelationGetNumberOfBlocks(rel);
	for (blkno = 0; blkno < nblocks; blkno++)
	{
		Buffer		buf;

		CHECK_FOR_INTERRUPTS();

		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 bstrategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		old_cxt = MemoryContextSwitchTo(row_cxt);
		slim_stats_page(rel, buf, snapshot, &stats, values, isnull);
		MemoryContextSwitchTo(old_cxt);
		MemoryContextReset(row_cxt);
		UnlockReleaseBuffer(buf);
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
	Assert(i == lengthof(result));

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(result_desc, result,
													  result_null)));
}

