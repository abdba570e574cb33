/*-------------------------------------------------------------------------
 *
 * slim_compact.c
 *	  CALL slimheap.compact(): a slimheap table's existing rows re-laid in
 *	  place into its mode, page by page, online.
 *
 * Rows written before a table became slimheap (slimheap.adopt()), before
 * its mode changed, or in a form without a tail (an UPDATE's new row while
 * logical decoding is on) keep heap's form, or a longer one, until a
 * rewrite.  compact re-lays them where they are, with the in-place
 * re-layout of index builds (slim_relayout.c: a cleanup lock, the same
 * line pointer, header and visibility, slimheap's WAL record, nothing
 * decoded), choosing the rows that its form stores in less room, and
 * records the room freed in the free space map.  It takes SHARE UPDATE
 * EXCLUSIVE lock, as VACUUM does: reads and writes go on.  Only rows
 * inserted by committed transactions are touched.  A page another session
 * keeps pinned is skipped and tried once more at the end.
 *
 * It sleeps as VACUUM does (vacuum_cost_delay, vacuum_cost_limit: off by
 * default outside autovacuum).  Called on its own (CALL outside a
 * transaction block) it commits every
 * SLIM_COMPACT_BATCH pages, so it holds no snapshot for long and a cancel
 * keeps what was done.  It keeps its position on disk at each commit and
 * once a second (slim_compact_position.c): the next CALL after a cancel,
 * an error or a crash goes on from there without forming the rows of the
 * pages done again.  Shrinking the file is VACUUM FULL's or pg_repack's
 * job; both keep the forms.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_compact.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "commands/vacuum.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/timestamp.h"

#include "slim_compact_position.h"
#include "slim_compat.h"
#include "slim_relayout.h"
#include "slimheap.h"

PG_FUNCTION_INFO_V1(slimheap_compact);

/* pages between commits */
#define SLIM_COMPACT_BATCH	1024

/* how often compact keeps its position within a batch */
#define SLIM_COMPACT_POSITION_MS	1000

/* the range being compacted, for the position kept between its pages */
typedef struct SlimCompactRange
{
	Relation	rel;
	uint32		form_key;
	List	  **skipped;
	TimestampTz kept_at;		/* when the position was last written */
} SlimCompactRange;

static SlimCompactRange *slim_compact_range_now = NULL;

/*
 * Before each page: VACUUM's cost delay (vacuum_cost_delay,
 * vacuum_cost_limit), and, once a second, the position (the pages before
 * this one are done, or were skipped)
 */
static void
slim_compact_delay(BlockNumber blkno)
{
	SlimCompactRange *range = slim_compact_range_now;
	TimestampTz now;

	slim_vacuum_delay_point();
	if (range == NULL)
		return;
	now = GetCurrentTimestamp();
	if (TimestampDifferenceExceeds(range->kept_at, now,
								   SLIM_COMPACT_POSITION_MS))
	{
		slim_compact_position_write(range->rel, range->form_key, blkno,
									*range->skipped);
		range->kept_at = now;
	}
}

/*
 * Turn VACUUM's cost accounting on for compact's buffer accesses (outside
 * VACUUM it is off), or back to what it was
 */
static bool
slim_compact_costs(bool on, bool was_active)
{
	bool		active = VacuumCostActive;

	if (on)
	{
		slim_vacuum_update_costs();
		VacuumCostActive = VacuumCostDelay > 0;
		VacuumCostBalance = 0;
	}
	else
	{
		VacuumCostActive = was_active;
		VacuumCostBalance = 0;
	}
	return active;
}

/*
 * relid opened for compact, locked SHARE UPDATE EXCLUSIVE, with its
 * checks; NULL when it is gone (dropped between batches).
 */
static Relation
slim_compact_open(Oid relid)
{
	Relation	rel;

	/* before the lock: nobody else queues for it */
	if (get_rel_relkind(relid) == '\0')
		return NULL;
	if (!slim_relation_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(relid));
	rel = try_table_open(relid, ShareUpdateExclusiveLock);
	if (rel == NULL)
		return NULL;
	if (!slim_is_slimheap_relation(rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("table \"%s\" does not use access method slimheap",
						RelationGetRelationName(rel)),
				 errhint("slimheap.adopt() makes a heap table slimheap first.")));
	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", RelationGetRelationName(rel))));
	if (!slim_relation_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE,
					   RelationGetRelationName(rel));
	if (!slim_relayout_possible(rel))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("slimheap.compact() needs slimheap in shared_preload_libraries"),
				 errdetail("It logs the rows it re-lays in a WAL record of slimheap's own.")));
	return rel;
}

/*
 * blocks [start, end) of relid, in a transaction; false if relid is gone.
 * The position is kept at the end of the range (the first pass only: the
 * pinned pages' pass ends the call).
 */
static bool
slim_compact_range(Oid relid, BlockNumber start, BlockNumber *end,
				   List **skipped, uint64 *relaid, BlockNumber *nblocks,
				   bool skipped_pass)
{
	Relation	rel = slim_compact_open(relid);
	SlimCompactRange range;

	if (rel == NULL)
		return false;
	*nblocks = RelationGetNumberOfBlocks(rel);
	*end = Min(*end, *nblocks);
	slim_progress_phase(start + 1 == *end && skipped_pass ?
						SLIM_PHASE_PINNED : SLIM_PHASE_RELAYING, *nblocks);
	if (start < *end &&
		slim_get_relinfo(rel)->options.null_bitmap != SLIM_NULL_BITMAP_FULL)
	{
		range.rel = rel;
		range.form_key = slim_compact_form_key(rel);
		range.skipped = skipped;
		range.kept_at = GetCurrentTimestamp();
		slim_compact_range_now = skipped_pass ? NULL : &range;
		PG_TRY();
		{
			slim_relayout_compact(rel, start, *end, NULL, slim_compact_delay,
								  skipped, relaid);
		}
		PG_FINALLY();
		{
			slim_compact_range_now = NULL;
		}
		PG_END_TRY();
		if (!skipped_pass)
			slim_compact_position_write(rel, range.form_key, *end, *skipped);
	}
	table_close(rel, NoLock);
	return true;
}

/*
 * Where to begin: the position an earlier call on relid kept, if it still
 * holds (its pinned pages appended to *skipped), else block 0.  Positions
 * of tables dropped since are removed on the way.
 */
static BlockNumber
slim_compact_resume(Oid relid, List **skipped, BlockNumber *nblocks)
{
	Relation	rel = slim_compact_open(relid);
	BlockNumber start;

	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	slim_compact_position_sweep();
	*nblocks = RelationGetNumberOfBlocks(rel);
	start = slim_compact_position_read(rel, slim_compact_form_key(rel),
									   skipped);
	if (start > 0)
		ereport(NOTICE,
				(errmsg("slimheap.compact() goes on with table \"%s\" at block %u of %u, where an earlier call stopped",
						RelationGetRelationName(rel), start, *nblocks),
				 list_length(*skipped) > 0 ?
				 errdetail("The %d pages it found pinned are tried again at the end.",
						   list_length(*skipped)) : 0));
	table_close(rel, NoLock);
	return start;
}

/*
 * The pages that stayed pinned to the end: kept as the position, so that
 * the next call tries them alone
 */
static void
slim_compact_keep_pinned(Oid relid, List *pinned, BlockNumber nblocks)
{
	Relation	rel = slim_compact_open(relid);

	if (rel == NULL)
		return;
	slim_compact_position_write(rel, slim_compact_form_key(rel), nblocks,
								pinned);
	table_close(rel, NoLock);
}

/*
 * CALL slimheap.compact(rel regclass)
 */
Datum
slimheap_compact(PG_FUNCTION_ARGS)
{
	Oid			relid;
	bool		atomic;
	BlockNumber blkno = 0;
	BlockNumber nblocks = 0;
	uint64		relaid = 0;
	List	   *skipped = NIL;
	List	   *again = NIL;
	ListCell   *lc;
	MemoryContext callercxt;
	MemoryContext cxt;
	MemoryContext oldcxt;
	int			pinned = 0;
	bool		was_active;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the table of slimheap.compact() must not be NULL")));
	relid = PG_GETARG_OID(0);
	atomic = fcinfo->context == NULL || !IsA(fcinfo->context, CallContext) ||
		((CallContext *) fcinfo->context)->atomic;

	/* what must outlive the commits */
	callercxt = CurrentMemoryContext;
	cxt = AllocSetContextCreate(TopMemoryContext, "slimheap compact",
								ALLOCSET_SMALL_SIZES);
	was_active = slim_compact_costs(true, false);
	slim_progress_start(SLIM_PROGRESS_COMPACT, relid, 0);
	PG_TRY();
	{
		if (!atomic)
			SPI_connect_ext(SPI_OPT_NONATOMIC);
		oldcxt = MemoryContextSwitchTo(cxt);
		blkno = slim_compact_resume(relid, &skipped, &nblocks);
		MemoryContextSwitchTo(oldcxt);
		slim_progress_phase(SLIM_PHASE_RELAYING, nblocks);
		slim_progress_pages_done(Min(blkno, nblocks));
		for (;;)
		{
			BlockNumber end = blkno + SLIM_COMPACT_BATCH;

			oldcxt = MemoryContextSwitchTo(cxt);
			if (!slim_compact_range(relid, blkno, &end, &skipped, &relaid,
									&nblocks, false))
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_TABLE),
						 errmsg("relation with OID %u does not exist", relid)));
			MemoryContextSwitchTo(oldcxt);
			blkno = Max(blkno, end);
			if (blkno >= nblocks)
				break;
			if (!atomic)
				SPI_commit();
		}

		/* the pages that were pinned: once more, one at a time */
		foreach(lc, skipped)
		{
			BlockNumber one = (BlockNumber) lfirst_int(lc);
			BlockNumber end = one + 1;

			oldcxt = MemoryContextSwitchTo(cxt);
			(void) slim_compact_range(relid, one, &end, &again, &relaid,
									  &nblocks, true);
			MemoryContextSwitchTo(oldcxt);
		}
		if (!atomic)
			SPI_finish();
		pinned = list_length(again);
		/* to its end: the next call starts over, or tries the pinned pages */
		if (pinned > 0)
			slim_compact_keep_pinned(relid, again, nblocks);
		else
			slim_compact_position_forget(relid);
	}
	PG_FINALLY();
	{
		/* an error may have left cxt (or a child of it) current */
		MemoryContextSwitchTo(callercxt);
		(void) slim_compact_costs(false, was_active);
		slim_progress_end();
		MemoryContextDelete(cxt);
	}
	PG_END_TRY();

	ereport(NOTICE,
			(errmsg("compacted table \"%s\": %llu rows re-laid in place",
					get_rel_name(relid), (unsigned long long) relaid),
			 pinned > 0 ?
			 errdetail("%d pages stayed pinned by other sessions; CALL slimheap.compact() again for them.",
					   pinned) : 0));
	PG_RETURN_VOID();
}
