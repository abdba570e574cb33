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
 * The walk over each tuple's values, the compressed tail of a compress-mode
 * row included, is in slim_verify_values.c.
 *
 * Invariant T1 (a row stores every attribute up to the last column with a
 * fast default) depends on when a row was formed relative to the ADD COLUMN,
 * which the page does not record.  What can be checked soundly is explained
 * at verify_update_chains().
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

/* the other t_infomask2 bit PostgreSQL leaves free (htup_details.h) */
#define SLIM_UNUSED_INFOMASK2	0x1000

#define VERIFY_COLUMNS			3

/*
 * Report one problem at the current position.  A state without a result set
 * (slim_verify_checker()) keeps the first problem of the tuple instead.
 */
void
verify_report(VerifyState *st, const char *fmt,...)
{
	Datum		values[VERIFY_COLUMNS];
	bool		nulls[VERIFY_COLUMNS] = {false, false, false};
	StringInfoData msg;

	if (st->tupstore == NULL && st->problem != NULL)
		return;

	initStringInfo(&msg);
	for (;;)
	{
		va_list		args;
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&msg, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&msg, needed);
	}
	if (st->tupstore == NULL)
	{
		st->problem = msg.data;
		return;
	}

	values[0] = Int64GetDatum((int64) st->blkno);
	if (OffsetNumberIsValid(st->offnum))
		values[1] = Int32GetDatum((int32) st->offnum);
	else
		nulls[1] = true;
	values[2] = CStringGetTextDatum(msg.data);
	tuplestore_putvalues(st->tupstore, st->retdesc, values, nulls);
	pfree(msg.data);
}

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
		rel->rd_tableam != GetHeapamTableAmRoutine())
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

static void
verify_prepare(VerifyState *st, Relation rel)
{
	TupleDesc	tupdesc = RelationGetDescr(rel);
	int			n;

	st->rel = rel;
	st->tupdesc = tupdesc;
	st->relnatts = tupdesc->natts;
	st->toastrelid = rel->rd_rel->reltoastrelid;
	st->is_slimheap = slim_is_slimheap_relation(rel);
	st->isnull = palloc0(Max(st->relnatts, 1) * sizeof(bool));
	st->values = palloc0(Max(st->relnatts, 1) * sizeof(Datum));
	st->positions = palloc0(Max(st->relnatts, 1) * sizeof(int16));
	st->ordered = palloc0(Max(st->relnatts, 1) * sizeof(int16));

	/* the writers' own rule (slim_tuple.c), for every stored natts */
	st->any_missing = slim_missing_natts(tupdesc) > 0;
	st->floor_below = palloc0((st->relnatts + 1) * sizeof(int));
	if (st->any_missing)
	{
		for (n = 1; n <= st->relnatts; n++)
			st->floor_below[n] = slim_missing_natts_upto(tupdesc, n);
	}
}

/*
 * The page header must describe a layout that fits the block; otherwise
 * none of its line pointers can be trusted.
 */
static bool
verify_page_header(VerifyState *st, Page page)
{
	PageHeader	ph = (PageHeader) page;

	if (ph->pd_lower < SizeOfPageHeaderData ||
		ph->pd_lower > ph->pd_upper ||
		ph->pd_upper > ph->pd_special ||
		ph->pd_special != BLCKSZ)
	{
		verify_report(st, "page header is invalid: pd_lower %u, pd_upper %u, pd_special %u",
					  ph->pd_lower, ph->pd_upper, ph->pd_special);
		return false;
	}
	return true;
}

/*
 * Check one LP_NORMAL item whose storage lies within the page.  Returns true
 * when the tuple is sound; *natts is then the number of attributes it
 * stores (for a row with a compressed tail, its prefix and its tail).
 */
static bool
verify_tuple(VerifyState *st, HeapTupleHeader tup, Size tuplen, int *natts)
{
	uint16		infomask = tup->t_infomask;
	uint16		infomask2 = tup->t_infomask2;
	Size		expected_hoff;
	bool		sound = true;

	*natts = HeapTupleHeaderGetNatts(tup);

	switch (slim_check_tuple_header(tup, tuplen, st->relnatts))
	{
		case SLIM_HEADER_HOFF_OUTSIDE:
		case SLIM_HEADER_HOFF_UNALIGNED:
			verify_report(st, "t_hoff %u is invalid for a tuple of %zu bytes (must be maximally aligned, at least %zu and at most the tuple length)",
						  tup->t_hoff, tuplen, (Size) MAXALIGN(SizeofHeapTupleHeader));
			return false;
		case SLIM_HEADER_NATTS:
			verify_report(st, "number of attributes %d exceeds the relation's %d",
						  *natts, st->relnatts);
			return false;
		case SLIM_HEADER_BITMAP:	/* reported below, with t_hoff */
		case SLIM_HEADER_SOUND:
			break;
	}

	expected_hoff = SizeofHeapTupleHeader;
	if (infomask & HEAP_HASNULL)
		expected_hoff += BITMAPLEN(*natts);
	expected_hoff = MAXALIGN(expected_hoff);
	if (tup->t_hoff != expected_hoff)
	{
		if (infomask & HEAP_HASNULL)
			verify_report(st, "t_hoff %u does not match %d attributes with a NULL bitmap (expected %zu)",
						  tup->t_hoff, *natts, expected_hoff);
		else
			verify_report(st, "t_hoff %u does not match a tuple without a NULL bitmap (expected %zu)",
						  tup->t_hoff, expected_hoff);
		return false;
	}

	if (infomask2 & SLIM_UNUSED_INFOMASK2)
	{
		verify_report(st, "unknown t_infomask2 bit 0x%04x is set",
					  SLIM_UNUSED_INFOMASK2);
		sound = false;
	}

	/*
	 * Combinations of visibility bits that no code writes.  (HEAP_KEYS_UPDATED
	 * with HEAP_XMAX_LOCK_ONLY is not one: SELECT FOR UPDATE writes it.)
	 * They do not affect where attributes are, so the walk below still runs.
	 */
	if ((infomask & HEAP_XMAX_COMMITTED) && (infomask & HEAP_XMAX_INVALID))
	{
		verify_report(st, "HEAP_XMAX_COMMITTED and HEAP_XMAX_INVALID are both set (the composite-datum marker) on a stored tuple");
		sound = false;
	}
	if ((infomask & HEAP_XMAX_COMMITTED) && (infomask & HEAP_XMAX_IS_MULTI))
	{
		verify_report(st, "multixact xmax is marked committed");
		sound = false;
	}

	/* the values, the compressed tail's included (SLIM_HEAP_TAIL) */
	if (!verify_row_values(st, tup, tuplen, natts))
		return false;
	return sound;
}

/*
 * Check the line pointers and tuples of the page copy in st->page.
 */
static void
verify_page_items(VerifyState *st)
{
	Page		page = st->page.data;
	PageHeader	ph = (PageHeader) page;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber off;

	if (maxoff > MaxHeapTuplesPerPage)
	{
		st->offnum = InvalidOffsetNumber;
		verify_report(st, "page has %u line pointers, more than a heap page can hold (%zu)",
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
						verify_report(st, "line pointer redirects to offset %u, outside 1..%u",
									  target, maxoff);
						continue;
					}
					tlp = PageGetItemId(page, target);
					if (!ItemIdIsNormal(tlp))
						verify_report(st, "line pointer redirects to offset %u, which holds no tuple",
									  target);
					continue;
				}
			case LP_NORMAL:
				break;
		}

		switch (slim_check_item_bounds(lp, ph->pd_upper, ph->pd_special))
		{
			case SLIM_ITEM_OUTSIDE:
				verify_report(st, "line pointer to %u..%u lies outside the tuple space %u..%u of the page",
							  lp_off, lp_off + lp_len, ph->pd_upper, ph->pd_special);
				continue;
			case SLIM_ITEM_UNALIGNED:
				verify_report(st, "line pointer offset %u is not maximally aligned",
							  lp_off);
				continue;
			case SLIM_ITEM_SHORT:
				verify_report(st, "line pointer length %u is shorter than a tuple header (%zu)",
							  lp_len, (Size) MAXALIGN(SizeofHeapTupleHeader));
				continue;
			case SLIM_ITEM_SOUND:
				break;
		}

		st->items[off].sound =
			verify_tuple(st, (HeapTupleHeader) (page + lp_off), lp_len,
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
verify_update_chains(VerifyState *st)
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
			verify_report(st, "tuple stores %d attributes, but column %d has a fast default and the tuple it updates (offset %u) stores it: a NULL left out would read back as the default (invariant T1)",
						  st->items[next].natts, floor, off);
		}
	}
}

/*
 * For the functions that read rows from shared buffers before they deform
 * them (stats(), estimate()): a state that checks one tuple at a time with
 * verify()'s rules.
 */
VerifyState *
slim_verify_checker(Relation rel)
{
	VerifyState *st = palloc0(sizeof(VerifyState));

	verify_prepare(st, rel);
	return st;
}

/*
 * The first problem verify() would report for the tuple of an item that lies
 * within its page, or NULL when the tuple can be deformed safely.
 */
const char *
slim_verify_tuple(VerifyState *st, HeapTupleHeader tup, Size tuplen)
{
	int			natts;

	Assert(st->tupstore == NULL);
	st->problem = NULL;
	(void) verify_tuple(st, tup, tuplen, &natts);
	return st->problem;
}

Datum
slimheap_verify(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	VerifyState *st;
	BufferAccessStrategy strategy;
	BlockNumber nblocks;

	/* its reports describe single rows: superusers only, as page_items() */
	slim_inspect_require_superuser("verify");

	InitMaterializedSRF(fcinfo, 0);

	st = palloc0(sizeof(VerifyState));
	st->tupstore = rsinfo->setResult;
	st->retdesc = rsinfo->setDesc;
	verify_prepare(st, verify_open_relation(relid));

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
