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
#include "catalog/catalog.h"
#include "catalog/pg_class.h"
#include "executor/tuptable.h"
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

PG_FUNCTION_INFO_V1(slimheap_estimate);

/*
 * The null_bitmap modes estimate() projects, one output row each.  "full" is
 * heap's layout and the baseline the savings are measured against.
 */
typedef struct SlimEstimateMode
{
	const char *name;
	SlimNullBitmap mode;
} SlimEstimateMode;

static const SlimEstimateMode slim_estimate_modes[] = {
	{"full", SLIM_NULL_BITMAP_FULL},	/* first: the baseline */
	{"truncate", SLIM_NULL_BITMAP_TRUNCATE},
	{"compress", SLIM_NULL_BITMAP_COMPRESS},
};

#define SLIM_ESTIMATE_NMODES	lengthof(slim_estimate_modes)

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
	int			prefix_natts;	/* compress: the C1 prefix floor */
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
 * The prefix floor (invariant C1, docs/format.md) the compress mode would
 * give the table's rows after a conversion with its current indexes, replica
 * identity, fast defaults and slimheap.prefix_columns: the compressed tail
 * starts after it.  The descriptor's natts when no row could have a tail:
 * REPLICA IDENTITY FULL, or a table that is logically logged (C3).
 */
static int
slim_estimate_prefix_natts(Relation rel)
{
	SlimOptions opts;

	slim_read_options(RelationGetRelid(rel), &opts);
	return slim_compress_prefix_natts(rel, NULL, &opts,
									  slim_missing_natts(RelationGetDescr(rel)));
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
								 slim_estimate_modes[i].mode, est->min_natts,
								 est->prefix_natts);
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
	est.prefix_natts = slim_estimate_prefix_natts(rel);
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

