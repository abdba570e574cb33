/*-------------------------------------------------------------------------
 *
 * slim_estimate.c
 *	  slimheap.estimate(regclass, sample_rows int): the main-fork size a
 *	  heap (or slimheap) table would have after conversion, per null_bitmap
 *	  mode, from a block sample or a full scan.
 *
 * Row sizes come from slimheap's own former (slim_form_tuple()), never from
 * a second copy of its layout rules, so the figures follow the former
 * wherever it goes; the rows are then packed onto simulated pages the way a
 * rewrite fills them.  docs/inspect.md describes the columns and the method.
 *
 * Pages are read as stats() reads them (slim_inspect_read_page()): through a
 * bulk-read strategy, in block order, each row checked with verify()'s rules
 * before it is deformed.  Nothing is kept per row or per block read, so the
 * memory is the same whatever the table and the sample size.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/inspect/slim_estimate.c
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
#include "catalog/catalog.h"
#include "catalog/pg_class.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

#include "slimheap.h"
#include "slim_inspect.h"
#include "slim_wal.h"
#include "slim_tail.h"
#include "slim_verify.h"

PG_FUNCTION_INFO_V1(slimheap_estimate);

/*
 * The largest sample_rows accepted.  Memory does not grow with it, but a
 * larger "sample" is a full scan in all but name (ANALYZE's largest sample
 * is 3 million rows): NULL asks for one.
 */
#define SLIM_SAMPLE_MAX_ROWS	10000000

/* sample blocks sorted into block order at a time: 256 kB of block numbers */
#define SLIM_SAMPLE_CHUNK		65536

/*
 * The null_bitmap modes estimate() projects, one output row each, in the
 * order of SlimNullBitmap (SlimEstimateResult's arrays are indexed by it).
 * "full" is heap's layout and the baseline the savings are measured against.
 */
typedef struct SlimEstimateMode
{
	const char *name;
	SlimNullBitmap mode;
} SlimEstimateMode;

static const SlimEstimateMode slim_estimate_modes[SLIM_ESTIMATE_NMODES] = {
	{"full", SLIM_NULL_BITMAP_FULL},	/* first: the baseline */
	{"truncate", SLIM_NULL_BITMAP_TRUNCATE},
	{"compress", SLIM_NULL_BITMAP_COMPRESS},
};

StaticAssertDecl(SLIM_NULL_BITMAP_FULL == 0 && SLIM_NULL_BITMAP_TRUNCATE == 1 &&
				 SLIM_NULL_BITMAP_COMPRESS == 2,
				 "slim_estimate_modes is indexed by SlimNullBitmap");

/* the name of mode m, as slimheap.null_bitmap spells it */
const char *
slim_estimate_mode_name(int m)
{
	Assert(m >= 0 && m < SLIM_ESTIMATE_NMODES);
	return slim_estimate_modes[m].name;
}

/*
 * What estimate() keeps while it reads: the relation's facts, read before
 * the first block, scratch for one row, and the packers of the modes.
 */
typedef struct SlimEstimate
{
	Relation	rel;
	TupleDesc	desc;
	int			missing_floor;		/* the T1 floor conversion would apply */
	const SlimFloor *prefix_floor;	/* compress: the C1 prefix floor */
	SlimVerifyState *checker;		/* verify()'s checks of each row */
	Snapshot	snapshot;
	BufferAccessStrategy strategy;
	SlimInspectPage *page;		/* the page being read */
	Datum	   *values;			/* scratch: one row's values */
	bool	   *isnull;			/* scratch: its NULLs, dropped ones NULL */
	MemoryContext row_cxt;		/* reset after every row */
	int64		rows;			/* live rows read */
	int64		blocks;			/* blocks read */
	int64		toasted[SLIM_ESTIMATE_NMODES];
	SlimPacker	packers[SLIM_ESTIMATE_NMODES];
} SlimEstimate;

/*
 * The prefix floor (invariant C1, docs/format.md) the compress mode would
 * give the table's rows after a conversion with its current indexes, replica
 * identity, fast defaults and slimheap.prefix_columns: each row's compressed
 * tail starts after it (per row: an indexed column keeps a row's prefix
 * long only where the row holds a value).  natts when no row could have a tail:
 * REPLICA IDENTITY FULL, or a table that is logically logged while
 * slimheap cannot log tails for decoding (C3).
 */
static const SlimFloor *
slim_estimate_prefix_floor(Relation rel)
{
	SlimOptions opts;

	slim_read_options(RelationGetRelid(rel), &opts);
	return slim_compress_prefix_floor(rel, NULL, &opts,
									  slim_missing_floor(RelationGetDescr(rel)),
									  RelationIsLogicallyLogged(rel) &&
									  !slim_wal_registered(), NULL);
}

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
 * Account for one live row, of stored length stored_len: form it in every
 * mode with the real formers and put it on the simulated pages of each.
 * Runs in est->row_cxt.
 */
static void
slim_estimate_row(SlimEstimate *est, HeapTupleHeader td, Size stored_len,
				  OffsetNumber off)
{
	TupleDesc	desc = est->desc;
	HeapTupleData tuple;
	bool		has_external = HeapTupleHeaderHasExternal(td);
	int			i;

	tuple.t_data = td;
	tuple.t_len = stored_len;
	tuple.t_tableOid = RelationGetRelid(est->rel);
	ItemPointerSet(&tuple.t_self, est->page->blkno, off);

	/* a tail row's values too; the missing ones read as the fast defaults */
	slim_deform_tuple(&tuple, desc, est->values, est->isnull);

	/* a rewrite stores NULL for dropped columns (ATRewriteTable()) */
	for (i = 0; i < desc->natts; i++)
		est->isnull[i] |= TupleDescAttr(desc, i)->attisdropped;

	for (i = 0; i < (int) SLIM_ESTIMATE_NMODES; i++)
	{
		HeapTuple	formed;
		Size		len;

		formed = slim_form_tuple(desc, est->values, est->isnull,
								 slim_estimate_modes[i].mode, est->missing_floor,
								 slim_floor_row(est->prefix_floor, est->isnull,
												est->missing_floor));
		len = formed->t_len;

		/*
		 * The toaster re-forms the rows it changes with heap's full layout;
		 * what it produces is not known without toasting, so count such a
		 * row as it is stored now.
		 */
		if (slim_row_gets_toasted(desc, est->values, est->isnull,
								  has_external, len))
		{
			len = stored_len;
			est->toasted[i]++;
		}
		slim_packer_add(&est->packers[i], len);
	}
	est->rows++;
}

/*
 * Read block blkno and account for its live rows.
 */
static void
slim_estimate_block(SlimEstimate *est, BlockNumber blkno)
{
	SlimInspectPage *page = est->page;
	MemoryContext old_cxt;
	OffsetNumber off;

	CHECK_FOR_INTERRUPTS();

	slim_inspect_read_page(est->rel, blkno, est->strategy, est->snapshot,
						   page);
	old_cxt = MemoryContextSwitchTo(est->row_cxt);
	for (off = FirstOffsetNumber; off <= page->maxoff; off++)
	{
		HeapTupleHeader td;
		Size		len;

		if (page->items[off] == SLIM_ITEM_NO_ROW)
			continue;
		/* dead rows too: a damaged page is an error, whatever is on it */
		td = slim_inspect_row(est->checker, page, off, &len);
		if (page->items[off] == SLIM_ITEM_LIVE)
			slim_estimate_row(est, td, len, off);
		MemoryContextReset(est->row_cxt);
	}
	MemoryContextSwitchTo(old_cxt);
	est->blocks++;
}

/* forget what was read: a sample that turns out to need every block */
static void
slim_estimate_restart(SlimEstimate *est)
{
	int			m;

	est->rows = 0;
	est->blocks = 0;
	for (m = 0; m < (int) SLIM_ESTIMATE_NMODES; m++)
	{
		Size		save_free = est->packers[m].save_free;

		est->toasted[m] = 0;
		memset(&est->packers[m], 0, sizeof(SlimPacker));
		est->packers[m].save_free = save_free;
	}
}

/*
 * Golden-ratio stride: the first k blocks of the sequence i * step mod n
 * (step coprime to n) spread evenly over the table for every k, so a sample
 * can stop as soon as it has enough rows and still cover the whole table,
 * and the same table always gives the same sample.  Rank i of the sequence
 * is block i * step mod n, so any stretch of ranks can be read in block
 * order.
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
slim_block_cmp(const void *a, const void *b)
{
	BlockNumber ba = *(const BlockNumber *) a;
	BlockNumber bb = *(const BlockNumber *) b;

	return (ba > bb) - (ba < bb);
}

/*
 * Read every block in block order, packing as it goes.
 */
static void
slim_estimate_full(SlimEstimate *est, BlockNumber nblocks)
{
	BlockNumber blkno;

	for (blkno = 0; blkno < nblocks; blkno++)
		slim_estimate_block(est, blkno);
}

/*
 * Read the sample blocks of ranks from .. to-1 of the golden-ratio sequence
 * (rank i is block i * step mod nblocks), sorted into block order a chunk at
 * a time.
 */
static void
slim_estimate_ranks(SlimEstimate *est, uint64 step, BlockNumber nblocks,
					uint64 from, uint64 to, BlockNumber *chunk)
{
	while (from < to)
	{
		int			n = (int) Min(to - from, SLIM_SAMPLE_CHUNK);
		int			i;

		for (i = 0; i < n; i++)
			chunk[i] = (BlockNumber) (((from + i) * step) % nblocks);
		qsort(chunk, n, sizeof(BlockNumber), slim_block_cmp);
		for (i = 0; i < n; i++)
			slim_estimate_block(est, chunk[i]);
		from += n;
	}
}

/*
 * A sample of about sample_rows live rows: the first blocks of the
 * golden-ratio sequence, read in passes, each in block order.  The first
 * pass reads the fewest blocks that could hold sample_rows rows; each next
 * one as many more as the rows per block seen so far say are still needed,
 * and a thirty-second more, so that one more pass is rare.  When the blocks
 * needed are the whole table, the table is read in one full scan instead
 * (in block order, which makes the projection exact).
 */
static void
slim_estimate_sample(SlimEstimate *est, BlockNumber nblocks,
					 int64 sample_rows)
{
	uint64		step = slim_sample_step(nblocks);
	uint64		done = 0;
	uint64		want;
	BlockNumber *chunk;

	want = (uint64) ((sample_rows + MaxHeapTuplesPerPage - 1) /
					 MaxHeapTuplesPerPage);
	chunk = palloc(Min(nblocks, SLIM_SAMPLE_CHUNK) * sizeof(BlockNumber));
	for (;;)
	{
		double		need;

		if (want >= nblocks)
		{
			slim_estimate_restart(est);
			slim_estimate_full(est, nblocks);
			break;
		}
		slim_estimate_ranks(est, step, nblocks, done, want, chunk);
		done = want;
		if (est->rows >= sample_rows)
			break;

		/* no live row yet: twice the blocks */
		need = est->rows > 0 ?
			(double) (sample_rows - est->rows) * done / est->rows : done;
		need = ceil(need * 33.0 / 32.0);
		want = need >= (double) nblocks ? nblocks : done + (uint64) need;
	}
	pfree(chunk);
}

/*
 * The sample_rows argument argno of estimate() and advise(): 0 for NULL (read
 * every row), else 1 to SLIM_SAMPLE_MAX_ROWS.
 */
int64
slim_estimate_sample_arg(FunctionCallInfo fcinfo, int argno)
{
	int64		sample_rows;

	if (PG_ARGISNULL(argno))
		return 0;
	sample_rows = PG_GETARG_INT32(argno);
	if (sample_rows <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sample_rows must be positive, or NULL for a full scan")));
	if (sample_rows > SLIM_SAMPLE_MAX_ROWS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sample_rows %lld is too large", (long long) sample_rows),
				 errdetail("A sample has at most %d rows.",
						   SLIM_SAMPLE_MAX_ROWS),
				 errhint("Pass NULL to read every row.")));
	return sample_rows;
}

/*
 * Project the main fork of rel (opened by slim_inspect_open()) in every mode,
 * from a sample of about sample_rows live rows, or from every row when
 * sample_rows is 0.  estimate() shows *res as it is; advise() ranks tables
 * by it.
 */
void
slim_estimate_relation(Relation rel, int64 sample_rows,
					   SlimEstimateResult *res)
{
	SlimEstimate est;
	BlockNumber nblocks;
	double		scale;
	int			m;

	memset(&est, 0, sizeof(est));
	est.rel = rel;
	est.desc = RelationGetDescr(rel);
	/* the rewrite honours the table's fast defaults, as slim_relinfo.c says */
	est.missing_floor = slim_missing_floor(est.desc);
	est.prefix_floor = slim_estimate_prefix_floor(rel);
	est.checker = slim_verify_checker(rel);
	est.snapshot = slim_inspect_snapshot();
	est.strategy = GetAccessStrategy(BAS_BULKREAD);
	est.page = palloc(sizeof(SlimInspectPage));
	est.values = palloc(Max(est.desc->natts, 1) * sizeof(Datum));
	est.isnull = palloc(Max(est.desc->natts, 1) * sizeof(bool));
	est.row_cxt = AllocSetContextCreate(CurrentMemoryContext,
										"slimheap estimate rows",
										ALLOCSET_DEFAULT_SIZES);
	for (m = 0; m < (int) SLIM_ESTIMATE_NMODES; m++)
		est.packers[m].save_free =
			RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR);

	nblocks = RelationGetNumberOfBlocks(rel);
	if (sample_rows > 0 && nblocks > 0)
		slim_estimate_sample(&est, nblocks, sample_rows);
	else
		slim_estimate_full(&est, nblocks);
	FreeAccessStrategy(est.strategy);
	MemoryContextDelete(est.row_cxt);
	pfree(est.page);
	pfree(est.values);
	pfree(est.isnull);

	res->sampled_rows = est.rows;
	res->sampled_pages = est.blocks;
	res->full_scan = (est.blocks == (int64) nblocks);
	res->current_bytes = (int64) nblocks * BLCKSZ;

	/* a sample stands for the whole table in proportion to its blocks */
	scale = est.blocks > 0 ? (double) nblocks / est.blocks : 0.0;
	res->total_rows = res->full_scan ? est.rows :
		(int64) rint(est.rows * scale);

	for (m = 0; m < (int) SLIM_ESTIMATE_NMODES; m++)
	{
		res->toasted_rows[m] = est.toasted[m];
		if (res->full_scan)
			res->projected_pages[m] = est.packers[m].pages;
		else
			res->projected_pages[m] = (int64)
				ceil(slim_packer_fractional_pages(&est.packers[m]) * scale);
	}
}

Datum
slimheap_estimate(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	int64		sample_rows;
	Relation	rel;
	SlimEstimateResult res;
	int			m;

	InitMaterializedSRF(fcinfo, 0);

	relid = slim_inspect_relid_arg(fcinfo, 0, "estimate");
	/* NULL sample_rows: read every row */
	sample_rows = slim_estimate_sample_arg(fcinfo, 1);

	rel = slim_inspect_open(relid, "estimate", SLIM_TARGET_HEAP_TUPLES);
	slim_estimate_relation(rel, sample_rows, &res);

	for (m = 0; m < (int) SLIM_ESTIMATE_NMODES; m++)
	{
		Datum		values[11];
		bool		nulls[11];
		/* savings are against heap's layout, the first mode */
		int64		baseline = res.projected_pages[0] * BLCKSZ;
		int64		bytes = res.projected_pages[m] * BLCKSZ;
		int			i = 0;

		memset(nulls, 0, sizeof(nulls));
		values[i++] = CStringGetTextDatum(slim_estimate_modes[m].name);
		values[i++] = Int64GetDatum(res.sampled_rows);
		values[i++] = Int64GetDatum(res.sampled_pages);
		values[i++] = BoolGetDatum(res.full_scan);
		values[i++] = Int64GetDatum(res.total_rows);
		values[i++] = Int64GetDatum(res.toasted_rows[m]);
		values[i++] = Int64GetDatum(res.current_bytes);
		values[i++] = Int64GetDatum(res.projected_pages[m]);
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
