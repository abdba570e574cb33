/*-------------------------------------------------------------------------
 *
 * slim_verify.c
 *	  slimheap.verify(regclass): check the stored form of every tuple of a
 *	  slimheap (or heap) table and report what is wrong, one row per problem.
 *
 * amcheck's verify_heapam refuses tables whose access method is not heap, so
 * slimheap brings its own check.  It reads every page through the buffer
 * manager, copies it while holding a share lock, and then examines the copy:
 * page header, line pointers, tuple headers and the attributes each tuple
 * declares.  Nothing read from the page is trusted before it has been
 * bounds-checked against the page or the tuple, so arbitrary garbage produces
 * report rows, never a crash and never an error.
 *
 * The checks of one tuple (its header, then the walk over its values, the
 * compressed tail of a compress-mode row included) are slim_verify_values.c;
 * the state and its report, slim_verify_state.c.
 *
 * Invariant T1 (a row stores every attribute up to the last column with a
 * fast default) depends on when a row was formed relative to the ADD COLUMN,
 * which the page does not record.  What can be checked soundly is explained
 * at verify_update_chains().
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/inspect/slim_verify.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_class.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

#include "slimheap.h"
#include "slim_inspect.h"
#include "slim_page_check.h"
#include "slim_verify.h"

PG_FUNCTION_INFO_V1(slimheap_verify);

/*
 * Open the relation and refuse what cannot be verified, with an error that
 * says why.
 */
static Relation
verify_open_relation(Oid relid)
{
	Relation	rel = slim_open_relation_oid(relid, AccessShareLock);
	char		relkind = rel->rd_rel->relkind;

	if (relkind == RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot verify partitioned table \"%s\"",
						RelationGetRelationName(rel)),
				 errdetail("A partitioned table stores no rows itself."),
				 errhint("Verify each of its partitions.")));
	if (relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW &&
		relkind != RELKIND_TOASTVALUE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot verify \"%s\"", RelationGetRelationName(rel)),
				 errdetail_relkind_not_supported(relkind)));
	if (!slim_is_slimheap_relation(rel) &&
		rel->rd_tableam != slim_heap_routine)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot verify \"%s\"", RelationGetRelationName(rel)),
				 errdetail("Only tables of access method slimheap or heap can be verified.")));
	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot verify temporary tables of other sessions")));
	slim_inspect_check_recovery(rel);
	return rel;
}

/*
 * The page header must describe a layout that fits the block; otherwise
 * none of its line pointers can be trusted.
 */
static bool
verify_page_header(SlimVerifyState *st, Page page)
{
	PageHeader	ph = (PageHeader) page;

	if (ph->pd_lower < SizeOfPageHeaderData ||
		ph->pd_lower > ph->pd_upper ||
		ph->pd_upper > ph->pd_special ||
		ph->pd_special != BLCKSZ)
	{
		slim_verify_report(st, "page header is invalid: pd_lower %u, pd_upper %u, pd_special %u",
					  ph->pd_lower, ph->pd_upper, ph->pd_special);
		return false;
	}
	return true;
}

/*
 * Check the line pointers and tuples of the page copy in st->page.
 */
static void
verify_page_items(SlimVerifyState *st)
{
	Page		page = st->page.data;
	PageHeader	ph = (PageHeader) page;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber off;

	if (maxoff > MaxHeapTuplesPerPage)
	{
		st->offnum = InvalidOffsetNumber;
		slim_verify_report(st, "page has %u line pointers, more than a heap page can hold (%zu)",
					  maxoff, (Size) MaxHeapTuplesPerPage);
		maxoff = MaxHeapTuplesPerPage;
	}

	for (off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		unsigned	lp_off = ItemIdGetOffset(lp);
		unsigned	lp_len = ItemIdGetLength(lp);

		st->offnum = off;
		st->items[off].sound = false;

		switch (ItemIdGetFlags(lp))
		{
			case LP_UNUSED:
			case LP_DEAD:
				continue;
			case LP_REDIRECT:
				{
					OffsetNumber target = ItemIdGetRedirect(lp);
					ItemId		tlp;

					if (target < FirstOffsetNumber || target > maxoff)
					{
						slim_verify_report(st, "line pointer redirects to offset %u, outside 1..%u",
									  target, maxoff);
						continue;
					}
					tlp = PageGetItemId(page, target);
					if (!ItemIdIsNormal(tlp))
						slim_verify_report(st, "line pointer redirects to offset %u, which holds no tuple",
									  target);
					continue;
				}
			case LP_NORMAL:
				break;
		}

		switch (slim_check_item_bounds(lp, ph->pd_upper, ph->pd_special))
		{
			case SLIM_ITEM_OUTSIDE:
				slim_verify_report(st, "line pointer to %u..%u lies outside the tuple space %u..%u of the page",
							  lp_off, lp_off + lp_len, ph->pd_upper, ph->pd_special);
				continue;
			case SLIM_ITEM_UNALIGNED:
				slim_verify_report(st, "line pointer offset %u is not maximally aligned",
							  lp_off);
				continue;
			case SLIM_ITEM_SHORT:
				slim_verify_report(st, "line pointer length %u is shorter than a tuple header (%zu)",
							  lp_len, (Size) MAXALIGN(SizeofHeapTupleHeader));
				continue;
			case SLIM_ITEM_SOUND:
				break;
		}

		st->items[off].sound =
			slim_verify_row(st, (HeapTupleHeader) (page + lp_off), lp_len,
						 &st->items[off].natts);
	}
}

/*
 * Invariant T1 says a row stores every attribute up to the last column that
 * has a fast default at the time the row is formed.  A row formed *before*
 * the ADD COLUMN legitimately stores fewer (it reads the default, rightly),
 * and nothing on the page tells when a row was formed: xmin order is not
 * commit order, and a transaction may get its xid before it takes its lock
 * on the table.  So a short row, on its own, is never evidence of a bug.
 *
 * Update chains give an ordering that is certain: the new version of a row
 * is formed after the old one.  If the old version stores attribute m, it
 * was formed after column m was added; a column's missing value is only ever
 * dropped (by a rewrite or DROP COLUMN), never added later, so if column m
 * has one now it had one ever since.  Hence the new version must store at
 * least through m.  We follow t_ctid within the page (HOT chains and
 * same-page updates) and accept a successor only when its xmin is the old
 * version's updating xid.
 */
static void
verify_update_chains(SlimVerifyState *st)
{
	Page		page = st->page.data;
	OffsetNumber maxoff = Min(PageGetMaxOffsetNumber(page),
							  MaxHeapTuplesPerPage);
	OffsetNumber off;

	if (!st->any_missing)
		return;

	for (off = FirstOffsetNumber; off <= maxoff; off++)
	{
		HeapTupleHeader old;
		HeapTupleHeader new;
		OffsetNumber next;
		int			floor;

		if (!st->items[off].sound)
			continue;
		old = (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, off));

		if (old->t_infomask & (HEAP_XMAX_INVALID | HEAP_XMAX_IS_MULTI))
			continue;
		if (HEAP_XMAX_IS_LOCKED_ONLY(old->t_infomask))
			continue;
		if (!TransactionIdIsNormal(HeapTupleHeaderGetRawXmax(old)))
			continue;
		if (ItemPointerGetBlockNumberNoCheck(&old->t_ctid) != st->blkno)
			continue;
		next = ItemPointerGetOffsetNumberNoCheck(&old->t_ctid);
		if (next == off || next < FirstOffsetNumber || next > maxoff ||
			!st->items[next].sound)
			continue;

		new = (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, next));
		if (HeapTupleHeaderGetRawXmin(new) != HeapTupleHeaderGetRawXmax(old))
			continue;

		floor = st->floor_below[st->items[off].natts];
		if (st->items[next].natts < floor)
		{
			st->offnum = next;
			slim_verify_report(st, "tuple stores %d attributes, but column %d has a fast default and the tuple it updates (offset %u) stores it: a NULL left out would read back as the default (invariant T1)",
						  st->items[next].natts, floor, off);
		}
	}
}

Datum
slimheap_verify(PG_FUNCTION_ARGS)
{
	Oid			relid;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SlimVerifyState *st;
	BufferAccessStrategy strategy;
	BlockNumber nblocks;

	/* its reports describe single rows: superusers only, as page_items() */
	slim_inspect_require_superuser("verify");
	relid = slim_inspect_relid_arg(fcinfo, 0, "verify");

	InitMaterializedSRF(fcinfo, 0);

	st = palloc0(sizeof(SlimVerifyState));
	st->tupstore = rsinfo->setResult;
	st->retdesc = rsinfo->setDesc;
	slim_verify_prepare(st, verify_open_relation(relid));

	strategy = GetAccessStrategy(BAS_BULKREAD);
	nblocks = RelationGetNumberOfBlocksInFork(st->rel, MAIN_FORKNUM);

	for (st->blkno = 0; st->blkno < nblocks; st->blkno++)
	{
		Buffer		buf;

		CHECK_FOR_INTERRUPTS();

		/*
		 * Work on a copy: the share lock is held only for the memcpy, and the
		 * checks may look at any item of the page in any order.
		 */
		buf = ReadBufferExtended(st->rel, MAIN_FORKNUM, st->blkno, RBM_NORMAL,
								 strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		memcpy(st->page.data, BufferGetPage(buf), BLCKSZ);
		UnlockReleaseBuffer(buf);

		/* a page extended but never written is valid and empty */
		if (PageIsNew(st->page.data))
			continue;

		st->offnum = InvalidOffsetNumber;
		if (!verify_page_header(st, st->page.data))
			continue;
		verify_page_items(st);
		verify_update_chains(st);
	}

	FreeAccessStrategy(strategy);
	relation_close(st->rel, AccessShareLock);
	return (Datum) 0;
}
