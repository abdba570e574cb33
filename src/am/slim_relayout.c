/*-------------------------------------------------------------------------
 *
 * slim_relayout.c
 *	  Re-lay out tail rows in place so that their prefix shows what the
 *	  indexes read.
 *
 * A row whose compressed tail holds a value an index reads must show it in
 * its standard prefix before the index is used (invariant C1).  Here such
 * a row is formed again with the relation's prefix floor and written over
 * itself, on its page, under a cleanup lock: the same line pointer, the
 * same t_xmin, t_xmax, t_cid, t_ctid and visibility bits, only the data
 * laid out anew.  No new row version, no row lock, nothing a snapshot, a
 * trigger or a logical decoder can tell from heap's build; rows no
 * snapshot sees are re-laid too.  A cleanup lock means that no other
 * backend holds a pin on the page, so nobody holds a pointer into the
 * tuples that move.  The page is written and logged by the WAL layer
 * (slim_wal_relayout.c), whose redo takes a cleanup lock as well, for the
 * queries of a hot standby.  This module stands on the format and WAL
 * layers and the relation's cached facts only: the index build, and the
 * mover of rows that do not fit, call it; it calls neither.
 *
 * A row that does not fit on its page once pruned, or a page that another
 * backend keeps pinned, is left: the caller stores such rows again as
 * UPDATEs (slim_index_move.c).  docs/format.md, "Index builds", has the
 * costs and when each happens.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_relayout.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/transam.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/procarray.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "slim_compat.h"
#include "slim_relayout.h"
#include "slim_tail.h"
#include "slim_wal.h"
#include "slimheap.h"

/* how long a page another backend pins is waited for: 100 tries, 1 ms apart */
#define SLIM_CLEANUP_TRIES		100

/* one pass over a relation */
typedef struct SlimRelayoutPass
{
	Relation	rel;
	TupleDesc	desc;
	const Bitmapset *attrs;		/* what the indexes read */
	bool		whole_row;
	int			last;			/* the last attribute they read */
	SlimNullBitmap mode;		/* compress or truncate, with the floors */
	int			missing_floor;
	const SlimFloor *prefix_floor;
	Datum	   *values;
	bool	   *isnull;
	BufferAccessStrategy strategy;
	MemoryContext page_cxt;		/* the rows formed for one page */
	bool		complete;		/* no row left hiding a value */
	bool		shrink;			/* compact: the rows its form stores shorter */
	uint64		relaid;
	int64		saved;			/* bytes of the page the re-laid rows freed */
} SlimRelayoutPass;

/* whether rel's rows can be re-laid: its WAL, if any, has a record for it */
bool
slim_relayout_possible(Relation rel)
{
	return !RelationNeedsWAL(rel) || slim_wal_registered();
}

/*
 * A cleanup lock of buf, unless another backend keeps it pinned: tried
 * for 100 ms, or once for compact (which comes back to the page later).
 */
static bool
slim_relayout_lock(SlimRelayoutPass *rp, Buffer buf)
{
	int			i;

	for (i = 0; i < (rp->shrink ? 1 : SLIM_CLEANUP_TRIES); i++)
	{
		if (ConditionalLockBufferForCleanup(buf))
			return true;
		CHECK_FOR_INTERRUPTS();
		pg_usleep(1000L);
	}
	return false;
}

/*
 * Whether the row was inserted by a transaction that aborted: never read
 * by anyone, and possibly laid out for another descriptor (the rows of an
 * aborted ADD COLUMN have more attributes than the relation has).
 */
static bool
slim_relayout_aborted(HeapTupleHeader td)
{
	TransactionId xmin;

	if (HeapTupleHeaderXminCommitted(td))
		return false;
	if (HeapTupleHeaderXminInvalid(td))
		return true;
	xmin = HeapTupleHeaderGetRawXmin(td);
	if (!TransactionIdIsNormal(xmin) ||
		TransactionIdIsCurrentTransactionId(xmin) ||
		TransactionIdIsInProgress(xmin))
		return false;
	return !TransactionIdDidCommit(xmin);
}

/*
 * Whether compact may re-lay the row td: inserted by a committed
 * transaction (never one in progress, whose own reads may hold the row),
 * not an insert of ON CONFLICT that may still be taken back, and without
 * external values (the former would keep heap's form for it anyway, C2).
 */
static bool
slim_relayout_settled(HeapTupleHeader td)
{
	TransactionId xmin;

	if (HeapTupleHeaderIsSpeculative(td) || HeapTupleHeaderHasExternal(td))
		return false;
	if (HeapTupleHeaderXminCommitted(td))
		return true;
	if (HeapTupleHeaderXminInvalid(td))
		return false;
	xmin = HeapTupleHeaderGetRawXmin(td);
	if (!TransactionIdIsNormal(xmin))
		return xmin == FrozenTransactionId;
	if (TransactionIdIsCurrentTransactionId(xmin) ||
		TransactionIdIsInProgress(xmin))
		return false;
	return TransactionIdDidCommit(xmin);
}

/*
 * Whether the row td may have to be re-laid: its prefix hides a value
 * (index builds), or, for compact, it is settled (whether its form is
 * shorter is seen once it is formed).
 */
static bool
slim_relayout_wanted(SlimRelayoutPass *rp, HeapTupleHeader td)
{
	if (rp->shrink)
		return slim_relayout_settled(td);
	return HeapTupleHeaderGetNatts(td) < rp->last &&
		SlimHeaderHasTail(td) && !slim_relayout_aborted(td) &&
		slim_tail_hides(td, rp->desc, rp->attrs, rp->whole_row);
}

/*
 * The row at offnum formed again with the pass's floors, if its prefix
 * hides a value the indexes read; else NULL.
 */
static HeapTuple
slim_relayout_form(SlimRelayoutPass *rp, Page page, OffsetNumber offnum,
				   BlockNumber blkno)
{
	ItemId		lp = PageGetItemId(page, offnum);
	HeapTupleData tuple;
	HeapTuple	formed;
	int			stored_natts;
	int			i;

	if (!ItemIdIsNormal(lp))
		return NULL;
	tuple.t_data = (HeapTupleHeader) PageGetItem(page, lp);
	tuple.t_len = ItemIdGetLength(lp);
	tuple.t_tableOid = RelationGetRelid(rp->rel);
	ItemPointerSet(&tuple.t_self, blkno, offnum);
	if (!slim_relayout_wanted(rp, tuple.t_data))
		return NULL;
	stored_natts = slim_deform_tuple(&tuple, rp->desc, rp->values, rp->isnull);

	/*
	 * The same attributes stored, no more: those past them read as their
	 * "missing" values (fast defaults) or NULL before and after, so the
	 * row keeps its age (a row older than a fast-default column must not
	 * store it).  The stored NULLs that end a row (T1) stay stored: the
	 * former stores through Min(missing floor, stored_natts)
	 * (docs/fast-defaults.md, revision 3, 1).
	 */
	for (i = stored_natts; i < rp->desc->natts; i++)
		rp->isnull[i] = true;
	formed = slim_form_tuple(rp->desc, rp->values, rp->isnull, rp->mode,
							 Min(rp->missing_floor, stored_natts),
							 slim_floor_row(rp->prefix_floor, rp->isnull,
											Min(rp->missing_floor, stored_natts)));
	/* compact: only a row that takes less room on the page */
	if (rp->shrink && MAXALIGN(formed->t_len) >= MAXALIGN(tuple.t_len))
		return NULL;
	return formed;
}

/* a row formed anew, with its offset and what it adds to the page */
typedef struct SlimRelayoutCandidate
{
	OffsetNumber offnum;
	long		grows;
	HeapTuple	row;
} SlimRelayoutCandidate;

/* qsort: the smallest growth first, then the page's order */
static int
slim_relayout_cmp_growth(const void *a, const void *b)
{
	const SlimRelayoutCandidate *ca = a;
	const SlimRelayoutCandidate *cb = b;

	if (ca->grows != cb->grows)
		return ca->grows < cb->grows ? -1 : 1;
	return (int) ca->offnum - (int) cb->offnum;
}

/*
 * Form every row of the page (cleanup-locked) that must be re-laid, and
 * keep as many as the page has room for: into offsets and rows, their
 * number returned.  The rows that grow least are taken first, so that the
 * fewest are left to be stored again elsewhere (a full page, fillfactor
 * 100, has room for a few).  *short_of_room: a row was left for want of
 * room.
 */
static int
slim_relayout_collect(SlimRelayoutPass *rp, Buffer buf,
					  OffsetNumber *offsets, HeapTuple *rows,
					  bool *short_of_room, long *grown)
{
	Page		page = BufferGetPage(buf);
	PageHeader	phdr = (PageHeader) page;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber offnum;
	long		room = (long) phdr->pd_upper - (long) phdr->pd_lower;
	SlimRelayoutCandidate cand[MaxHeapTuplesPerPage];
	int			ncand = 0;
	int			n = 0;
	int			i;

	*short_of_room = false;
	*grown = 0;
	for (offnum = FirstOffsetNumber; offnum <= maxoff; offnum++)
	{
		HeapTuple	row = slim_relayout_form(rp, page, offnum,
											 BufferGetBlockNumber(buf));

		if (row == NULL)
			continue;
		cand[ncand].offnum = offnum;
		cand[ncand].row = row;
		cand[ncand++].grows = (long) MAXALIGN(row->t_len) -
			(long) MAXALIGN(ItemIdGetLength(PageGetItemId(page, offnum)));
	}
	if (ncand > 1)
		qsort(cand, ncand, sizeof(SlimRelayoutCandidate),
			  slim_relayout_cmp_growth);
	for (i = 0; i < ncand; i++)
	{
		/* sorted: no later row fits where this one does not */
		if (cand[i].grows > room)
		{
			*short_of_room = true;
			break;
		}
		room -= cand[i].grows;
		*grown += cand[i].grows;
		offsets[n] = cand[i].offnum;
		rows[n++] = cand[i].row;
	}
	return n;
}

/*
 * Whether a row of the page (share-locked) hides a value: most pages have
 * none, and are left at that, without a cleanup lock.
 */
static bool
slim_relayout_needed(SlimRelayoutPass *rp, Buffer buf)
{
	Page		page = BufferGetPage(buf);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber offnum;

	for (offnum = FirstOffsetNumber; offnum <= maxoff; offnum++)
	{
		ItemId		lp = PageGetItemId(page, offnum);
		HeapTupleHeader td;

		if (!ItemIdIsNormal(lp))
			continue;
		td = (HeapTupleHeader) PageGetItem(page, lp);
		if (!slim_relayout_wanted(rp, td))
			continue;
		if (!rp->shrink ||
			slim_relayout_form(rp, page, offnum, BufferGetBlockNumber(buf)) != NULL)
			return true;
	}
	return false;
}

/*
 * Re-lay out the rows of one block that hide a value (or, for compact,
 * take less room in their form); false if the page stayed pinned.
 */
static bool
slim_relayout_block(SlimRelayoutPass *rp, BlockNumber blkno)
{
	Buffer		buf = ReadBufferExtended(rp->rel, MAIN_FORKNUM, blkno,
										 RBM_NORMAL, rp->strategy);
	OffsetNumber offsets[MaxHeapTuplesPerPage];
	HeapTuple	rows[MaxHeapTuplesPerPage];
	bool		pruned = false;
	bool		short_of_room;
	bool		needed;
	long		grown;
	int			n;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	needed = slim_relayout_needed(rp, buf);
	MemoryContextReset(rp->page_cxt);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	if (!needed)
	{
		ReleaseBuffer(buf);
		return true;
	}

	for (;;)
	{
		if (!slim_relayout_lock(rp, buf))
		{
			rp->complete = false;
			ReleaseBuffer(buf);
			return false;
		}
		n = slim_relayout_collect(rp, buf, offsets, rows, &short_of_room,
								  &grown);
		if (!short_of_room || pruned)
			break;

		/*
		 * dead rows may make room: prune as a read would, once.  The page
		 * is marked full first, as heap_update() marks a page without room
		 * for a new version (a hint), so that heap_page_prune_opt() prunes
		 * it whatever its free space.
		 */
		PageSetFull(BufferGetPage(buf));
		MarkBufferDirtyHint(buf, true);
		LockBuffer(buf, BUFFER_LOCK_UNLOCK);
		MemoryContextReset(rp->page_cxt);
		slim_page_prune_opt(rp->rel, buf);
		pruned = true;
	}
	if (short_of_room)
		rp->complete = false;
	if (n > 0)
	{
		slim_wal_relayout_page(rp->rel, buf, offsets, rows, n);
		rp->relaid += n;
		rp->saved -= grown;
	}
	/* compact frees room that VACUUM, skipping all-visible pages, may not see */
	if (n > 0 && rp->shrink)
	{
		Size		free_space = PageGetHeapFreeSpace(BufferGetPage(buf));

		UnlockReleaseBuffer(buf);
		RecordPageWithFreeSpace(rp->rel, blkno, free_space);
	}
	else
		UnlockReleaseBuffer(buf);
	MemoryContextReset(rp->page_cxt);
	return true;
}

/*
 * Whether a row of rel hides a value of attrs (as slim_relayout_table()
 * reads them), read under share locks only: for a caller that cannot
 * re-lay rows in place and would rather not rewrite a table that has none.
 */
bool
slim_relayout_any_wanted(Relation rel, const Bitmapset *attrs, bool whole_row,
						 int last)
{
	SlimRelayoutPass rp;
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	BlockNumber blkno;
	bool		found = false;

	memset(&rp, 0, sizeof(rp));
	rp.rel = rel;
	rp.desc = RelationGetDescr(rel);
	rp.attrs = attrs;
	rp.whole_row = whole_row;
	rp.last = last;
	rp.strategy = GetAccessStrategy(BAS_BULKREAD);
	for (blkno = 0; blkno < nblocks && !found; blkno++)
	{
		Buffer		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno,
											 RBM_NORMAL, rp.strategy);

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		found = slim_relayout_needed(&rp, buf);
		UnlockReleaseBuffer(buf);
	}
	FreeAccessStrategy(rp.strategy);
	return found;
}

/* a pass over rel with its floors now (compact: shrink) */
static void
slim_relayout_begin(SlimRelayoutPass *rp, Relation rel, bool shrink)
{
	const SlimRelInfo *info = slim_get_relinfo(rel);

	Assert(slim_relayout_possible(rel));
	memset(rp, 0, sizeof(*rp));
	rp->rel = rel;
	rp->desc = RelationGetDescr(rel);
	rp->shrink = shrink;
	/* full mode would store every attribute, the missing ones as NULLs */
	rp->mode = info->options.null_bitmap == SLIM_NULL_BITMAP_COMPRESS ?
		SLIM_NULL_BITMAP_COMPRESS : SLIM_NULL_BITMAP_TRUNCATE;
	rp->missing_floor = info->missing_floor;
	/* rows written in place are logged in slimheap's record, never decoded */
	rp->prefix_floor = info->rewrite_prefix_floor;
	rp->values = palloc(rp->desc->natts * sizeof(Datum));
	rp->isnull = palloc(rp->desc->natts * sizeof(bool));
	rp->strategy = GetAccessStrategy(BAS_VACUUM);
	rp->page_cxt = AllocSetContextCreate(CurrentMemoryContext,
										 "slimheap re-layout",
										 ALLOCSET_DEFAULT_SIZES);
	rp->complete = true;
}

static void
slim_relayout_end(SlimRelayoutPass *rp)
{
	MemoryContextDelete(rp->page_cxt);
	FreeAccessStrategy(rp->strategy);
	pfree(rp->values);
	pfree(rp->isnull);
}

/*
 * Re-lay out, in place, every row of rel whose prefix hides a value of
 * attrs (what its indexes read, the last of them last), with rel's prefix
 * floor as slim_get_relinfo() gives it now.  Every row with storage is
 * looked at, whoever sees it.  Returns whether no such row is left;
 * *relaid: how many were re-laid.  The caller holds a lock that keeps
 * rows from being written with a lower floor (C1).
 */
bool
slim_relayout_table(Relation rel, const Bitmapset *attrs, bool whole_row,
					int last, uint64 *relaid)
{
	SlimRelayoutPass rp;
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	BlockNumber blkno;
	MemoryContext oldcxt;

	slim_relayout_begin(&rp, rel, false);
	rp.attrs = attrs;
	rp.whole_row = whole_row;
	rp.last = last;
	oldcxt = MemoryContextSwitchTo(rp.page_cxt);
	slim_progress_phase(SLIM_PHASE_RELAYING, nblocks);
	for (blkno = 0; blkno < nblocks; blkno++)
	{
		uint64		relaid = rp.relaid;
		int64		saved = rp.saved;

		CHECK_FOR_INTERRUPTS();
		(void) slim_relayout_block(&rp, blkno);
		slim_progress_page(rp.relaid - relaid, rp.saved - saved);
	}
	MemoryContextSwitchTo(oldcxt);
	slim_relayout_end(&rp);
	*relaid = rp.relaid;
	return rp.complete;
}

/*
 * release: re-lay out in place, into rel's form now (its mode is truncate
 * or full: no tail), every row version with a tail whose inserter did not
 * abort, whoever sees it: of the blocks in only, or, when only is NIL, of
 * blocks [start, end).  The blocks where some are left are appended to
 * *short_of_room (no room once pruned) or to *pinned (another backend kept
 * the page pinned); *relaid counts the rows re-laid.
 */
void
slim_relayout_tails(Relation rel, const List *only, BlockNumber start,
					BlockNumber end, List **short_of_room, List **pinned,
					uint64 *relaid)
{
	SlimRelayoutPass rp;
	MemoryContext oldcxt = CurrentMemoryContext;
	const ListCell *lc = only != NIL ? list_head(only) : NULL;
	BlockNumber blkno = start;

	slim_relayout_begin(&rp, rel, false);
	if (slim_get_relinfo(rel)->options.null_bitmap == SLIM_NULL_BITMAP_COMPRESS)
		elog(ERROR, "table \"%s\" is in compress mode",
			 RelationGetRelationName(rel));
	/* a whole-row reference: every attribute a tail holds counts */
	rp.attrs = NULL;
	rp.whole_row = true;
	rp.last = rp.desc->natts + 1;
	for (;;)
	{
		uint64		relaid_before = rp.relaid;
		int64		saved_before = rp.saved;
		bool		done;

		if (only != NIL)
		{
			if (lc == NULL)
				break;
			blkno = (BlockNumber) lfirst_int(lc);
			lc = lnext(only, lc);
		}
		else if (blkno >= end)
			break;
		CHECK_FOR_INTERRUPTS();
		MemoryContextSwitchTo(rp.page_cxt);
		rp.complete = true;
		done = slim_relayout_block(&rp, blkno);
		MemoryContextSwitchTo(oldcxt);
		if (!done)
			*pinned = lappend_int(*pinned, (int) blkno);
		else if (!rp.complete)
			*short_of_room = lappend_int(*short_of_room, (int) blkno);
		slim_progress_page(rp.relaid - relaid_before,
						   rp.saved - saved_before);
		if (only == NIL)
			blkno++;
	}
	slim_relayout_end(&rp);
	*relaid += rp.relaid;
}

/*
 * compact: re-lay out, in place, the settled rows of blocks [start, end)
 * of rel (a compress or truncate table) that its form, with its floors
 * now, stores in less room, and record the room freed in the free space
 * map.  only, if not NULL, is a bitmap of the blocks to look at (bit
 * blkno - start), and per_block runs before each block looked at, with its
 * number (VACUUM's delay point; compact keeps its position there too).  A page another backend keeps pinned is not waited for:
 * its number is appended to *skipped (in the caller's memory context).
 * *relaid counts the rows re-laid.
 */
void
slim_relayout_compact(Relation rel, BlockNumber start, BlockNumber end,
					  const uint8 *only, void (*per_block) (BlockNumber),
					  List **skipped, uint64 *relaid)
{
	SlimRelayoutPass rp;
	BlockNumber blkno;
	MemoryContext oldcxt = CurrentMemoryContext;

	slim_relayout_begin(&rp, rel, true);
	for (blkno = start; blkno < end; blkno++)
	{
		bool		done;
		uint64		relaid_before;
		int64		saved_before;

		if (only != NULL &&
			(only[(blkno - start) / 8] & (1 << ((blkno - start) % 8))) == 0)
		{
			slim_progress_page(0, 0);
			continue;
		}
		CHECK_FOR_INTERRUPTS();
		if (per_block != NULL)
			per_block(blkno);
		MemoryContextSwitchTo(rp.page_cxt);
		relaid_before = rp.relaid;
		saved_before = rp.saved;
		done = slim_relayout_block(&rp, blkno);
		MemoryContextSwitchTo(oldcxt);
		if (!done)
			*skipped = lappend_int(*skipped, (int) blkno);
		else
			slim_progress_page(rp.relaid - relaid_before,
							   rp.saved - saved_before);
	}
	/* the free space map's upper levels, for inserts that search it */
	if (rp.relaid > 0)
		FreeSpaceMapVacuumRange(rel, start, end);
	slim_relayout_end(&rp);
	*relaid += rp.relaid;
}
