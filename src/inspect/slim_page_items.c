/*-------------------------------------------------------------------------
 *
 * slim_page_items.c
 *	  slimheap.page_items(regclass, blkno int8): the line pointers of one
 *	  page of a slimheap table and the form of each row.
 *
 * pageinspect's heap_page_items() shows the raw header fields; this one says
 * what slimheap wrote (full, truncated, or a compressed tail and its
 * encoding), and reports what does not add up on a damaged page instead of
 * reading it.  docs/inspect.md describes the columns.
 *
 * Each row's natts tells its last non-NULL column, whatever the caller may
 * read of the table, so this is for superusers, like pageinspect.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/inspect/slim_page_items.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "fmgr.h"
#include "funcapi.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/builtins.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

#include "slimheap.h"
#include "slim_inspect.h"
#include "slim_page_check.h"
#include "slim_tail.h"

PG_FUNCTION_INFO_V1(slimheap_page_items);

#define SLIM_PAGE_ITEMS_COLUMNS	11

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
 * on the page is trusted: every length and offset is checked before use
 * (slim_page_check.c), and what does not add up is reported in "problem"
 * instead of being read.
 */
static void
slim_page_item(Page page, OffsetNumber off, TupleDesc tupdesc, Datum *values,
			   bool *nulls)
{
	ItemId		itemid = PageGetItemId(page, off);
	unsigned	lp_flags = ItemIdGetFlags(itemid);
	int			relnatts = tupdesc->natts;
	HeapTupleHeader td;
	SlimItemProblem item_problem;
	SlimHeaderProblem header_problem;
	SlimTailInfo tail;
	const char *tail_problem;

	/* lp, lp_off, lp_flags, lp_len */
	values[0] = Int32GetDatum(off);
	values[1] = Int32GetDatum(ItemIdGetOffset(itemid));
	values[2] = CStringGetTextDatum(slim_lp_flags_name(lp_flags));
	values[3] = Int32GetDatum(ItemIdGetLength(itemid));
	/* form, natts, t_hoff, has_bitmap, problem, tail_encoding, stored_natts */
	nulls[4] = nulls[5] = nulls[6] = nulls[7] = nulls[8] = true;
	nulls[9] = nulls[10] = true;

	if (lp_flags != LP_NORMAL)
		return;

	item_problem = slim_check_item_bounds(itemid, SizeOfPageHeaderData, BLCKSZ);
	if (item_problem != SLIM_ITEM_SOUND)
	{
		values[8] = CStringGetTextDatum(slim_item_problem_text(item_problem));
		nulls[8] = false;
		return;
	}

	/* the header lies within the page: report what it says */
	td = (HeapTupleHeader) PageGetItem(page, itemid);
	values[5] = Int32GetDatum(HeapTupleHeaderGetNatts(td));
	values[6] = Int32GetDatum(td->t_hoff);
	values[7] = BoolGetDatum((td->t_infomask & HEAP_HASNULL) != 0);
	nulls[5] = nulls[6] = nulls[7] = false;

	header_problem = slim_check_tuple_header(td, ItemIdGetLength(itemid),
											 relnatts);
	if (header_problem != SLIM_HEADER_SOUND)
	{
		values[8] = CStringGetTextDatum(slim_header_problem_text(header_problem));
		nulls[8] = false;
		return;
	}

	/* a compressed tail must decode within the item before it is named */
	tail_problem = slim_check_row_tail(td, ItemIdGetLength(itemid), tupdesc,
									   &tail);
	if (tail_problem != NULL)
	{
		values[8] = CStringGetTextDatum(tail_problem);
		nulls[8] = false;
		return;
	}

	values[4] = CStringGetTextDatum(slim_row_form_name(slim_row_form(td, relnatts)));
	nulls[4] = false;
	if (SlimHeaderHasTail(td))
	{
		values[9] = CStringGetTextDatum(slim_tail_encoding_name(tail.encoding));
		nulls[9] = false;
		values[10] = Int32GetDatum(tail.stored_natts);
	}
	else
		values[10] = Int32GetDatum(HeapTupleHeaderGetNatts(td));
	nulls[10] = false;
}

Datum
slimheap_page_items(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	int64		blkno;
	Relation	rel;
	BlockNumber nblocks;
	PGAlignedBlock copy;
	Page		page = (Page) copy.data;
	Buffer		buf;
	TupleDesc	tupdesc;
	OffsetNumber maxoff;
	OffsetNumber off;

	/* natts and lengths of single rows: pageinspect's rule */
	slim_inspect_require_superuser("page_items");

	relid = slim_inspect_relid_arg(fcinfo, 0, "page_items");
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the block number of slimheap.page_items() must not be null")));
	blkno = PG_GETARG_INT64(1);

	InitMaterializedSRF(fcinfo, 0);
	if (rsinfo->setDesc->natts != SLIM_PAGE_ITEMS_COLUMNS)
		elog(ERROR, "slimheap.page_items() is declared with %d columns, expected %d",
			 rsinfo->setDesc->natts, SLIM_PAGE_ITEMS_COLUMNS);

	rel = slim_inspect_open(relid, "page_items", SLIM_TARGET_SLIMHEAP);
	/* the descriptor outlives the relation's lock: the rows need it */
	tupdesc = CreateTupleDescCopyConstr(RelationGetDescr(rel));

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
		Datum		values[SLIM_PAGE_ITEMS_COLUMNS];
		bool		nulls[SLIM_PAGE_ITEMS_COLUMNS];

		memset(nulls, 0, sizeof(nulls));
		slim_page_item(page, off, tupdesc, values, nulls);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values,
							 nulls);
	}

	PG_RETURN_VOID();
}
