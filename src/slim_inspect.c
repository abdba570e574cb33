/*-------------------------------------------------------------------------
 *
 * slim_inspect.c
 *	  Introspection and advice: what slimheap saved on a table, what it
 *	  would save on any heap table, and what a slimheap page holds.
 *
 * pgstattuple and pageinspect's attribute functions refuse tables whose
 * access method is not heap, so slimheap brings its own:
 *
 *	slimheap.stats(regclass)			live and dead rows of a slimheap table,
 *										per row form, against the bytes the
 *										same rows take in heap's layout
 *	slimheap.estimate(regclass, int)	the main-fork size a table would have
 *										after conversion, per null_bitmap mode,
 *										from a block sample or a full scan
 *	slimheap.page_items(regclass, int8) the line pointers of one page of a
 *										slimheap table and the form of each row
 *
 * Row sizes come from slimheap's own former (slim_form_tuple) and heap's
 * (heap_form_tuple), never from a second copy of their layout rules, so the
 * figures follow the former wherever it goes (the compress mode included).
 *
 * The functions are for superusers and members of pg_stat_scan_tables, as
 * pgstattuple's are: the SQL script revokes EXECUTE from PUBLIC.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/detoast.h"
#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/tableam.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"

#include "slimheap.h"

PG_FUNCTION_INFO_V1(slimheap_stats);
PG_FUNCTION_INFO_V1(slimheap_estimate);
PG_FUNCTION_INFO_V1(slimheap_page_items);

/*
 * The t_infomask2 bit that marks a row in the compressed-tail form (DESIGN.md
 * section 4; htup_details.h leaves bits 0x1800 free).  No build writes it yet;
 * the inspection functions already report such rows as "tail" rows.
 */
#ifndef SLIM_HEAP_COMPRESSED_TAIL
#define SLIM_HEAP_COMPRESSED_TAIL	0x0800
#endif

/* How a stored row is written, as the functions report it. */
typedef enum SlimRowForm
{
	SLIM_ROW_FULL,				/* all attributes stored: heap's own layout */
	SLIM_ROW_TRUNCATED,			/* fewer attributes stored than the table has */
	SLIM_ROW_TAIL				/* compressed tail (SLIM_HEAP_COMPRESSED_TAIL) */
} SlimRowForm;

static const char *const slim_row_form_names[] = {
	[SLIM_ROW_FULL] = "full",
	[SLIM_ROW_TRUNCATED] = "truncated",
	[SLIM_ROW_TAIL] = "tail"
};

/*
 * The null_bitmap modes estimate() projects, one output row each.  "full" is
 * heap's layout and the baseline the savings are measured against.  The
 * compress mode gets its entry here once slim_form_tuple() can write it.
 */
typedef struct SlimEstimateMode
{
	const char *name;
	SlimNullBitmap mode;
} SlimEstimateMode;

static const SlimEstimateMode slim_estimate_modes[] = {
	{"full", SLIM_NULL_BITMAP_FULL},	/* first: the baseline */
	{"truncate", SLIM_NULL_BITMAP_TRUNCATE},
};

#define SLIM_ESTIMATE_NMODES	lengthof(slim_estimate_modes)

/*
 * Which relations the functions accept.
 */
typedef enum SlimInspectTarget
{
	SLIM_TARGET_SLIMHEAP,		/* slimheap tables only */
	SLIM_TARGET_HEAP_TUPLES		/* any table that stores heap tuples */
} SlimInspectTarget;


/* ----------------------------------------------------------------
 *		common checks and output helpers
 * ----------------------------------------------------------------
 */

/*
 * Open a relation for inspection, with clear errors for relations that have
 * no rows of their own (views, indexes, sequences, partitioned tables ...),
 * for other sessions' temporary tables, and for access methods the function
 * cannot read.
 */
static Relation
slim_inspect_open(Oid relid, const char *funcname, SlimInspectTarget target)
{
	Relation	rel = relation_open(relid, AccessShareLock);
	char		relkind = rel->rd_rel->relkind;

	if (relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot inspect relation \"%s\" with slimheap.%s()",
						RelationGetRelationName(rel), funcname),
				 errdetail_relkind_not_supported(relkind),
				 relkind == RELKIND_PARTITIONED_TABLE ?
				 errhint("Inspect its partitions instead.") : 0));

	/* their pages live in the other session's local buffers */
	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary tables of other sessions")));

	if (slim_is_slimheap_relation(rel))
		return rel;

	if (target == SLIM_TARGET_SLIMHEAP)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a slimheap table",
						RelationGetRelationName(rel)),
				 errdetail("Its access method is %s.",
						   get_am_name(rel->rd_rel->relam)),
				 errhint("slimheap.estimate() shows what slimheap would save on it.")));

	/* estimate() reads rows through heap's slots and on-page tuples */
	if (rel->rd_tableam != GetHeapamTableAmRoutine())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot estimate \"%s\": its access method %s does not store heap tuples",
						RelationGetRelationName(rel),
						get_am_name(rel->rd_rel->relam)),
				 errdetail("slimheap.estimate() reads tables of the heap and slimheap access methods.")));

	return rel;
}

/*
 * 100 * part / whole as numeric rounded to two decimals; NULL (isnull set)
 * when whole is 0.
 */
static Datum
slim_percent(int64 part, int64 whole, bool *isnull)
{
	Datum		ratio;

	*isnull = (whole == 0);
	if (*isnull)
		return (Datum) 0;

	ratio = DirectFunctionCall2(numeric_div,
								NumericGetDatum(int64_to_numeric(part)),
								NumericGetDatum(int64_to_numeric(whole)));
	ratio = DirectFunctionCall2(numeric_mul, ratio,
								NumericGetDatum(int64_to_numeric(100)));
	return DirectFunctionCall2(numeric_round, ratio, Int32GetDatum(2));
}

/*
 * The snapshot that decides which rows are live: the query's.
 */
static Snapshot
slim_inspect_snapshot(void)
{
	return ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot();
}


/* ----------------------------------------------------------------
 *		slimheap.stats(regclass)
 * ----------------------------------------------------------------
 */

typedef struct SlimStats
{
	int64		pages;
	int64		live_rows;
	int64		live_bytes;
	int64		dead_rows;
	int64		dead_bytes;
	int64		free_bytes;
	int64		form_rows[lengthof(slim_row_form_names)];
	int64		form_bytes[lengthof(slim_row_form_names)];
	int64		heap_layout_bytes;
} SlimStats;

/*
 * The form of a stored row of a relation with relnatts attributes.
 */
static SlimRowForm
slim_row_form(HeapTupleHeader td, int relnatts)
{
	if (td->t_infomask2 & SLIM_HEAP_COMPRESSED_TAIL)
		return SLIM_ROW_TAIL;
	if (HeapTupleHeaderGetNatts(td) < relnatts)
		return SLIM_ROW_TRUNCATED;
	return SLIM_ROW_FULL;
}

/*
 * The bytes heap_form_tuple() would produce for the row: the stored values
 * read back through the table's descriptor, which includes the fast defaults
 * of columns past the row's natts (heap would store those as data) and keeps
 * what dropped columns still hold (heap keeps that too until a rewrite).
 */
static Size
slim_heap_layout_len(HeapTuple tuple, TupleDesc desc, Datum *values,
					 bool *isnull)
{
	HeapTuple	heap_tuple;
	Size		len;

	heap_deform_tuple(tuple, desc, values, isnull);
	heap_tuple = heap_form_tuple(desc, values, isnull);
	len = heap_tuple->t_len;
	heap_freetuple(heap_tuple);
	return len;
}

/*
 * Refuse an on-page item that does not hold a whole tuple header and data
 * area inside the page: stats() reads the header and deforms the row.
 */
static void
slim_check_item(Relation rel, Page page, BlockNumber blkno, OffsetNumber off)
{
	ItemId		itemid = PageGetItemId(page, off);
	unsigned	lp_off = ItemIdGetOffset(itemid);
	unsigned	lp_len = ItemIdGetLength(itemid);
	unsigned	hoff;

	if (lp_off < SizeOfPageHeaderData || lp_off + lp_len > BLCKSZ ||
		lp_len < SizeofHeapTupleHeader)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("line pointer (%u,%u) of relation \"%s\" is corrupted",
						blkno, off, RelationGetRelationName(rel)),
				 errdetail("lp_off %u, lp_len %u.", lp_off, lp_len),
				 errhint("slimheap.page_items() shows the page.")));

	hoff = ((HeapTupleHeader) PageGetItem(page, itemid))->t_hoff;
	if (hoff < SizeofHeapTupleHeader || hoff > lp_len)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("row (%u,%u) of relation \"%s\" is corrupted",
						blkno, off, RelationGetRelationName(rel)),
				 errdetail("t_hoff %u, lp_len %u.", hoff, lp_len),
				 errhint("slimheap.page_items() shows the page.")));
}

/*
 * Count one page.  The buffer is share-locked.
 */
static void
slim_stats_page(Relation rel, Buffer buf, Snapshot snapshot, SlimStats *stats,
				Datum *values, bool *isnull)
{
	TupleDesc	desc = RelationGetDescr(rel);
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
		if (form == SLIM_ROW_TAIL)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("row (%u,%u) of relation \"%s\" is in the compressed-tail form",
							blkno, off, RelationGetRelationName(rel)),
					 errdetail("This build of slimheap does not read compressed-tail rows.")));

		stats->live_rows++;
		stats->live_bytes += tuple.t_len;
		stats->form_rows[form]++;
		stats->form_bytes[form] += tuple.t_len;
		stats->heap_layout_bytes += slim_heap_layout_len(&tuple, desc,
														 values, isnull);
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
	Datum		result[16];
	bool		result_null[16];
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
	result[i++] = Int64GetDatum(stats.form_rows[SLIM_ROW_TAIL]);
	result[i++] = Int64GetDatum(stats.form_bytes[SLIM_ROW_TAIL]);
	result[i++] = Int64GetDatum(stats.heap_layout_bytes);
	result[i++] = Int64GetDatum(stats.heap_layout_bytes - stats.live_bytes);
	result[i] = slim_percent(stats.heap_layout_bytes - stats.live_bytes,
							 stats.heap_layout_bytes, &result_null[i]);
	i++;
	Assert(i == lengthof(result));

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(result_desc, result,
													  result_null)));
}


/* ----------------------------------------------------------------
 *		slimheap.estimate(regclass, sample_rows int)
 * ----------------------------------------------------------------
 */

/*
 * The pages of a relation filled the way heap_insert() fills them when a
 * table rewrite (ALTER TABLE, including SET ACCESS METHOD) inserts rows in a
 * row with a bulk-insert state and without the free space map: each row goes
 * to the current last page if that page has room for it plus the fillfactor
 * reserve, otherwise to a new page (see RelationGetBufferForTuple()).
 */
typedef struct SlimPacker
{
	Size		save_free;		/* fillfactor reserve per page */
	int64		pages;			/* pages started */
	Size		lower;			/* pd_lower of the last page */
	Size		upper;			/* pd_upper of the last page */
	int			nitems;			/* line pointers on the last page */
} SlimPacker;

/* PageGetHeapFreeSpace() of the packer's last page */
static Size
slim_packer_free(const SlimPacker *p)
{
	Size		space;

	if (p->upper - p->lower < sizeof(ItemIdData))
		return 0;
	space = p->upper - p->lower - sizeof(ItemIdData);
	/* a new page has no unused line pointers to recycle */
	if (p->nitems >= MaxHeapTuplesPerPage)
		return 0;
	return space;
}

static void
slim_packer_add(SlimPacker *p, Size len)
{
	Size		nearly_empty;
	Size		target;

	/* heap refuses longer rows; the estimate keeps going with a full page */
	len = MAXALIGN(Min(len, MaxHeapTupleSize));

	nearly_empty = MaxHeapTupleSize -
		(MaxHeapTuplesPerPage / 8 * sizeof(ItemIdData));
	if (len + p->save_free > nearly_empty)
		target = Max(len, nearly_empty);
	else
		target = len + p->save_free;

	if (p->pages == 0 || target > slim_packer_free(p))
	{
		p->pages++;
		p->lower = SizeOfPageHeaderData;
		p->upper = BLCKSZ;
		p->nitems = 0;
	}
	p->lower += sizeof(ItemIdData);
	p->upper -= len;
	p->nitems++;
}

/*
 * The pages used, counting the last page by the share of it the rows fill:
 * what a sample stands for is a stretch of the table, not whole pages.
 */
static double
slim_packer_fractional_pages(const SlimPacker *p)
{
	Size		usable = BLCKSZ - SizeOfPageHeaderData;
	Size		used;

	if (p->pages == 0)
		return 0.0;
	used = (p->lower - SizeOfPageHeaderData) + (BLCKSZ - p->upper);
	return (double) (p->pages - 1) + Min(1.0, (double) used / usable);
}

/*
 * A sample's rows, kept so that they can be packed in the order of their
 * blocks on disk, as a rewrite reads them: the sample visits blocks in an
 * order spread over the table (slim_sample_step()).
 */
typedef struct SlimSampleBlock
{
	BlockNumber blkno;
	int64		first_row;		/* index into SlimEstimate.row_lens */
	int64		nrows;
} SlimSampleBlock;

typedef struct SlimEstimate
{
	Relation	rel;
	TupleDesc	desc;
	int			min_natts;		/* the T1 floor conversion would apply */
	bool	   *isnull;			/* scratch: the slot's, dropped ones NULL */
	MemoryContext row_cxt;		/* reset after every row */
	int64		rows;			/* live rows read */
	int64		blocks;			/* blocks read */
	int64		toasted[SLIM_ESTIMATE_NMODES];
	SlimPacker	packers[SLIM_ESTIMATE_NMODES];

	/* sampling only: row lengths per mode, and the blocks they came from */
	bool		buffer_rows;
	uint32	   *row_lens;		/* SLIM_ESTIMATE_NMODES per row */
	int64		row_lens_size;	/* allocated rows */
	SlimSampleBlock *sample_blocks;
	int64		nsample_blocks;
	int64		sample_blocks_size;	/* allocated blocks */
} SlimEstimate;

/*
 * Would heap_insert() hand this row to the toaster and would the toaster
 * change it?  It runs for rows with external values (it fetches and stores
 * them again) and for rows longer than TOAST_TUPLE_THRESHOLD, where it
 * compresses or moves out the varlena values long enough to be worth it.
 */
static bool
slim_row_gets_toasted(TupleDesc desc, Datum *values, const bool *isnull,
					  bool has_external, Size len)
{
	int			i;

	if (has_external)
		return true;
	if (len <= TOAST_TUPLE_THRESHOLD)
		return false;

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (isnull[i] || att->attlen != -1 ||
			att->attstorage == TYPSTORAGE_PLAIN)
			continue;
		if (VARSIZE_ANY(DatumGetPointer(values[i])) >
			MAXALIGN(TOAST_POINTER_SIZE))
			return true;
	}
	return false;
}

/*
 * Account for one live row: form it in every mode with the real formers,
 * and put it on the simulated pages of each (or keep its lengths, when
 * sampling).
 */
static void
slim_estimate_row(SlimEstimate *est, TupleTableSlot *slot)
{
	TupleDesc	desc = est->desc;
	HeapTuple	stored;
	bool		should_free;
	Size		stored_len;
	bool		has_external;
	uint32		lens[SLIM_ESTIMATE_NMODES];
	MemoryContext old_cxt;
	int			i;

	slot_getallattrs(slot);

	/* the stored row as it is now: its length and whether it is toasted */
	stored = ExecFetchSlotHeapTuple(slot, false, &should_free);
	stored_len = stored->t_len;
	has_external = HeapTupleHasExternal(stored);
	if (should_free)
		heap_freetuple(stored);

	/* a rewrite stores NULL for dropped columns (ATRewriteTable()) */
	for (i = 0; i < desc->natts; i++)
		est->isnull[i] = slot->tts_isnull[i] ||
			TupleDescAttr(desc, i)->attisdropped;

	old_cxt = MemoryContextSwitchTo(est->row_cxt);
	for (i = 0; i < (int) SLIM_ESTIMATE_NMODES; i++)
	{
		HeapTuple	formed;
		Size		len;

		formed = slim_form_tuple(desc, slot->tts_values, est->isnull,
								 slim_estimate_modes[i].mode, est->min_natts);
		len = formed->t_len;

		/*
		 * The toaster re-forms the rows it changes with heap's full layout;
		 * what it produces is not known without toasting, so count such a
		 * row as it is stored now.
		 */
		if (slim_row_gets_toasted(desc, slot->tts_values, est->isnull,
								  has_external, len))
		{
			len = stored_len;
			est->toasted[i]++;
		}
		lens[i] = (uint32) Min(len, MaxHeapTupleSize);
	}
	MemoryContextSwitchTo(old_cxt);
	MemoryContextReset(est->row_cxt);

	if (!est->buffer_rows)
	{
		for (i = 0; i < (int) SLIM_ESTIMATE_NMODES; i++)
			slim_packer_add(&est->packers[i], lens[i]);
	}
	else
	{
		if (est->rows >= est->row_lens_size)
		{
			est->row_lens_size *= 2;
			est->row_lens = repalloc_huge(est->row_lens,
										  est->row_lens_size *
										  SLIM_ESTIMATE_NMODES * sizeof(uint32));
		}
		memcpy(&est->row_lens[est->rows * SLIM_ESTIMATE_NMODES], lens,
			   sizeof(lens));
		est->sample_blocks[est->nsample_blocks - 1].nrows++;
	}

	est->rows++;
}

/*
 * Golden-ratio stride: the first k blocks of the sequence i * step mod n
 * (step coprime to n) spread evenly over the table for every k, so a sample
 * can stop as soon as it has enough rows and still cover the whole table,
 * and the same table always gives the same sample.
 */
static uint64
slim_sample_step(uint64 nblocks)
{
	uint64		step = (uint64) (nblocks * 0.6180339887498949);
	uint64		a,
				b;

	if (step == 0)
		step = 1;
	for (;; step++)
	{
		a = step;
		b = nblocks;
		while (b != 0)
		{
			uint64		t = a % b;

			a = b;
			b = t;
		}
		if (a == 1)
			return step;
	}
}

static int
slim_sample_block_cmp(const void *a, const void *b)
{
	BlockNumber ba = ((const SlimSampleBlock *) a)->blkno;
	BlockNumber bb = ((const SlimSampleBlock *) b)->blkno;

	return (ba > bb) - (ba < bb);
}

/*
 * Read sample blocks until sample_rows live rows are in, then pack their
 * rows in block order.
 */
static void
slim_estimate_sample(SlimEstimate *est, TupleTableSlot *slot,
					 Snapshot snapshot, BlockNumber nblocks,
					 int64 sample_rows)
{
	uint64		step = slim_sample_step(nblocks);
	uint64		i;
	ItemPointerData mintid;
	ItemPointerData maxtid;
	TableScanDesc scan;
	int64		b;

	est->buffer_rows = true;
	est->row_lens_size = 1024;
	est->row_lens = palloc(est->row_lens_size * SLIM_ESTIMATE_NMODES *
						   sizeof(uint32));
	est->sample_blocks_size = 64;
	est->sample_blocks = palloc(est->sample_blocks_size *
								sizeof(SlimSampleBlock));

	ItemPointerSet(&mintid, 0, FirstOffsetNumber);
	ItemPointerSet(&maxtid, 0, MaxOffsetNumber);
	scan = table_beginscan_tidrange(est->rel, snapshot, &mintid, &maxtid);

	for (i = 0; i < nblocks && est->rows < sample_rows; i++)
	{
		BlockNumber blkno = (BlockNumber) ((i * step) % nblocks);
		SlimSampleBlock *block;

		if (est->nsample_blocks >= est->sample_blocks_size)
		{
			est->sample_blocks_size *= 2;
			est->sample_blocks = repalloc_huge(est->sample_blocks,
											   est->sample_blocks_size *
											   sizeof(SlimSampleBlock));
		}
		block = &est->sample_blocks[est->nsample_blocks++];

		block->blkno = blkno;
		block->first_row = est->rows;
		block->nrows = 0;

		ItemPointerSet(&mintid, blkno, FirstOffsetNumber);
		ItemPointerSet(&maxtid, blkno, MaxOffsetNumber);
		table_rescan_tidrange(scan, &mintid, &maxtid);
		while (table_scan_getnextslot_tidrange(scan, ForwardScanDirection,
											   slot))
		{
			CHECK_FOR_INTERRUPTS();
			slim_estimate_row(est, slot);
		}
		est->blocks++;
	}
	table_endscan(scan);

	qsort(est->sample_blocks, est->nsample_blocks, sizeof(SlimSampleBlock),
		  slim_sample_block_cmp);
	for (b = 0; b < est->nsample_blocks; b++)
	{
		SlimSampleBlock *block = &est->sample_blocks[b];
		int64		r;

		for (r = block->first_row; r < block->first_row + block->nrows; r++)
		{
			int			m;

			for (m = 0; m < (int) SLIM_ESTIMATE_NMODES; m++)
				slim_packer_add(&est->packers[m],
								est->row_lens[r * SLIM_ESTIMATE_NMODES + m]);
		}
	}
}

/*
 * Read every live row in block order, packing as it goes.
 */
static void
slim_estimate_full(SlimEstimate *est, TupleTableSlot *slot, Snapshot snapshot,
				   BlockNumber nblocks)
{
	TableScanDesc scan;

	/* a bulk-read strategy, and no synchronized scan: start at block 0 */
	scan = table_beginscan_strat(est->rel, snapshot, 0, NULL, true, false);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		CHECK_FOR_INTERRUPTS();
		slim_estimate_row(est, slot);
	}
	table_endscan(scan);
	est->blocks = nblocks;
}

Datum
slimheap_estimate(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	int64		sample_rows;
	Relation	rel;
	SlimEstimate est;
	TupleTableSlot *slot;
	BlockNumber nblocks;
	bool		full_scan;
	double		scale;
	int64		total_rows;
	int64		projected[SLIM_ESTIMATE_NMODES];
	int			m;

	InitMaterializedSRF(fcinfo, 0);

	if (PG_ARGISNULL(0))
		PG_RETURN_VOID();
	relid = PG_GETARG_OID(0);

	/* NULL sample_rows: read every row */
	sample_rows = 0;
	if (!PG_ARGISNULL(1))
	{
		sample_rows = PG_GETARG_INT32(1);
		if (sample_rows <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sample_rows must be positive, or NULL for a full scan")));
	}

	rel = slim_inspect_open(relid, "estimate", SLIM_TARGET_HEAP_TUPLES);

	memset(&est, 0, sizeof(est));
	est.rel = rel;
	est.desc = RelationGetDescr(rel);
	/* the rewrite honours the table's fast defaults, as slim_relinfo.c says */
	est.min_natts = slim_missing_natts(est.desc);
	est.isnull = palloc(Max(est.desc->natts, 1) * sizeof(bool));
	est.row_cxt = AllocSetContextCreate(CurrentMemoryContext,
										"slimheap estimate rows",
										ALLOCSET_DEFAULT_SIZES);
	for (m = 0; m < (int) SLIM_ESTIMATE_NMODES; m++)
		est.packers[m].save_free =
			RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR);

	nblocks = RelationGetNumberOfBlocks(rel);
	slot = table_slot_create(rel, NULL);
	if (sample_rows > 0)
		slim_estimate_sample(&est, slot, slim_inspect_snapshot(), nblocks,
							 sample_rows);
	else
		slim_estimate_full(&est, slot, slim_inspect_snapshot(), nblocks);
	ExecDropSingleTupleTableSlot(slot);
	full_scan = (est.blocks == (int64) nblocks);

	/* a sample stands for the whole table in proportion to its blocks */
	scale = est.blocks > 0 ? (double) nblocks / est.blocks : 0.0;
	total_rows = full_scan ? est.rows : (int64) rint(est.rows * scale);

	for (m = 0; m < (int) SLIM_ESTIMATE_NMODES; m++)
	{
		if (full_scan)
			projected[m] = est.packers[m].pages;
		else
			projected[m] = (int64)
				ceil(slim_packer_fractional_pages(&est.packers[m]) * scale);
	}

	for (m = 0; m < (int) SLIM_ESTIMATE_NMODES; m++)
	{
		Datum		values[11];
		bool		nulls[11];
		/* savings are against heap's layout, the first mode */
		int64		baseline = projected[0] * BLCKSZ;
		int64		bytes = projected[m] * BLCKSZ;
		int			i = 0;

		memset(nulls, 0, sizeof(nulls));
		values[i++] = CStringGetTextDatum(slim_estimate_modes[m].name);
		values[i++] = Int64GetDatum(est.rows);
		values[i++] = Int64GetDatum(est.blocks);
		values[i++] = BoolGetDatum(full_scan);
		values[i++] = Int64GetDatum(total_rows);
		values[i++] = Int64GetDatum(est.toasted[m]);
		values[i++] = Int64GetDatum((int64) nblocks * BLCKSZ);
		values[i++] = Int64GetDatum(projected[m]);
		values[i++] = Int64GetDatum(bytes);
		values[i++] = Int64GetDatum(baseline - bytes);
		values[i] = slim_percent(baseline - bytes, baseline, &nulls[i]);
		i++;
		Assert(i == lengthof(values));
		if (rsinfo->setDesc->natts != lengthof(values))
			elog(ERROR, "slimheap.estimate() is declared with %d columns, expected %d",
				 rsinfo->setDesc->natts, (int) lengthof(values));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values,
							 nulls);
	}

	relation_close(rel, AccessShareLock);
	PG_RETURN_VOID();
}


/* ----------------------------------------------------------------
 *		slimheap.page_items(regclass, blkno int8)
 * ----------------------------------------------------------------
 */

static const char *
slim_lp_flags_name(unsigned flags)
{
	switch (flags)
	{
		case LP_UNUSED:
			return "unused";
		case LP_NORMAL:
			return "normal";
		case LP_REDIRECT:
			return "redirect";
		case LP_DEAD:
			return "dead";
	}
	return "?";					/* two bits: cannot happen */
}

/*
 * One output row for line pointer off of a private copy of a page.  Nothing
 * on the page is trusted: every length and offset is checked before use, and
 * what does not add up is reported in "problem" instead of being read.
 */
static void
slim_page_item(Page page, OffsetNumber off, int relnatts, Datum *values,
			   bool *nulls)
{
	ItemId		itemid = PageGetItemId(page, off);
	unsigned	lp_off = ItemIdGetOffset(itemid);
	unsigned	lp_len = ItemIdGetLength(itemid);
	unsigned	lp_flags = ItemIdGetFlags(itemid);
	HeapTupleHeader td;
	int			natts;
	unsigned	hoff;
	bool		has_bitmap;
	SlimRowForm form;
	const char *problem = NULL;

	/* lp, lp_off, lp_flags, lp_len */
	values[0] = Int32GetDatum(off);
	values[1] = Int32GetDatum(lp_off);
	values[2] = CStringGetTextDatum(slim_lp_flags_name(lp_flags));
	values[3] = Int32GetDatum(lp_len);
	/* form, natts, t_hoff, has_bitmap, tail_encoding, problem */
	nulls[4] = nulls[5] = nulls[6] = nulls[7] = nulls[8] = nulls[9] = true;

	if (lp_flags != LP_NORMAL)
		return;

	if (lp_off < SizeOfPageHeaderData || lp_off + lp_len > BLCKSZ)
		problem = "item lies outside the page";
	else if (lp_off != MAXALIGN(lp_off))
		problem = "item is not MAXALIGNed";
	else if (lp_len < SizeofHeapTupleHeader)
		problem = "item is shorter than a tuple header";
	if (problem != NULL)
	{
		values[9] = CStringGetTextDatum(problem);
		nulls[9] = false;
		return;
	}

	/* the header lies within the page: report what it says */
	td = (HeapTupleHeader) ((char *) page + lp_off);
	natts = HeapTupleHeaderGetNatts(td);
	hoff = td->t_hoff;
	has_bitmap = (td->t_infomask & HEAP_HASNULL) != 0;
	values[5] = Int32GetDatum(natts);
	values[6] = Int32GetDatum(hoff);
	values[7] = BoolGetDatum(has_bitmap);
	nulls[5] = nulls[6] = nulls[7] = false;

	if (hoff < SizeofHeapTupleHeader || hoff > lp_len)
		problem = "t_hoff lies outside the item";
	else if (hoff != MAXALIGN(hoff))
		problem = "t_hoff is not MAXALIGNed";
	else if (has_bitmap && SizeofHeapTupleHeader + BITMAPLEN(natts) > hoff)
		problem = "NULL bitmap runs past t_hoff";
	else if (natts > relnatts)
		problem = "natts exceeds the table's attributes";
	if (problem != NULL)
	{
		values[9] = CStringGetTextDatum(problem);
		nulls[9] = false;
		return;
	}

	form = slim_row_form(td, relnatts);
	values[4] = CStringGetTextDatum(slim_row_form_names[form]);
	nulls[4] = false;

	/*
	 * tail_encoding stays NULL: the compressed-tail form does not exist yet,
	 * and reading an encoding nobody defined would be guessing.
	 */
}

Datum
slimheap_page_items(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid = PG_GETARG_OID(0);
	int64		blkno = PG_GETARG_INT64(1);
	Relation	rel;
	BlockNumber nblocks;
	PGAlignedBlock copy;
	Page		page = (Page) copy.data;
	Buffer		buf;
	int			relnatts;
	OffsetNumber maxoff;
	OffsetNumber off;

	InitMaterializedSRF(fcinfo, 0);
	if (rsinfo->setDesc->natts != 10)
		elog(ERROR, "slimheap.page_items() is declared with %d columns, expected 10",
			 rsinfo->setDesc->natts);

	rel = slim_inspect_open(relid, "page_items", SLIM_TARGET_SLIMHEAP);
	relnatts = RelationGetDescr(rel)->natts;

	nblocks = RelationGetNumberOfBlocks(rel);
	if (blkno < 0 || blkno >= (int64) nblocks)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block number %lld is out of range for relation \"%s\"",
						(long long) blkno, RelationGetRelationName(rel)),
				 errdetail_plural("The relation has %u block.",
								  "The relation has %u blocks.",
								  nblocks, nblocks)));

	/* work on a copy, so no lock is held while rows are produced */
	buf = ReadBufferExtended(rel, MAIN_FORKNUM, (BlockNumber) blkno,
							 RBM_NORMAL, NULL);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	memcpy(copy.data, BufferGetPage(buf), BLCKSZ);
	UnlockReleaseBuffer(buf);
	relation_close(rel, AccessShareLock);

	if (PageIsNew(page))
		PG_RETURN_VOID();

	/* pd_lower bounds the line pointer array; do not read past the page */
	maxoff = PageGetMaxOffsetNumber(page);
	maxoff = Min(maxoff, (BLCKSZ - SizeOfPageHeaderData) / sizeof(ItemIdData));

	for (off = FirstOffsetNumber; off <= maxoff; off = OffsetNumberNext(off))
	{
		Datum		values[10];
		bool		nulls[10];

		memset(nulls, 0, sizeof(nulls));
		slim_page_item(page, off, relnatts, values, nulls);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values,
							 nulls);
	}

	PG_RETURN_VOID();
}
