/*-------------------------------------------------------------------------
 *
 * slim_vacuum.c
 *	  VACUUM of a compress table gives rows their form back: after heap's
 *	  VACUUM, the rows of the pages it found changed are re-laid in place.
 *
 * While logical decoding is on, heap logs an UPDATE's new row for
 * decoding, so slimheap stores it without a tail (invariant C3), and a
 * table updated under change data capture slowly loses its savings.  The
 * rows are all on pages that were not all-visible when VACUUM started:
 * after heap's VACUUM those pages (and only those: a pass before it would
 * delay freezing) go through compact's re-layout (slim_relayout.c): rows
 * inserted by committed transactions, without external values, that the
 * table's form stores in less room, written in place under one conditional
 * cleanup lock a page (a pinned page is skipped), with slimheap's WAL
 * record, which decodes to nothing: the values do not change, so a
 * subscriber receives nothing.  The free space map gets the room freed.
 *
 * Skipped: other modes (truncate and full form every row as they store
 * it), TOAST tables (heap's), unlogged and temporary tables, REPLICA
 * IDENTITY FULL tables (no tails), a server without slimheap's WAL record
 * (not preloaded), and a VACUUM for wraparound or past the failsafe.
 * VACUUM VERBOSE says what was re-laid.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_vacuum.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/multixact.h"
#include "access/transam.h"
#include "postmaster/autovacuum.h"
#include "access/visibilitymap.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "slim_am.h"
#include "slim_compat.h"
#include "slim_relayout.h"
#include "slimheap.h"

/* whether the VACUUM of rel re-lays rows after heap's */
static bool
slim_vacuum_relays(Relation rel, SLIM_VACUUM_PARAMS params)
{
	return slim_get_relinfo(rel)->options.null_bitmap ==
		SLIM_NULL_BITMAP_COMPRESS &&
		rel->rd_rel->relkind == RELKIND_RELATION &&
		rel->rd_rel->relpersistence == RELPERSISTENCE_PERMANENT &&
		rel->rd_rel->relreplident != REPLICA_IDENTITY_FULL &&
		!params->is_wraparound &&
		slim_relayout_possible(rel);
}

/*
 * The blocks of rel that the visibility map does not show all-visible, as
 * a bitmap of *nblocks bits; NULL when there are none.
 */
static uint8 *
slim_vacuum_changed_blocks(Relation rel, BlockNumber *nblocks)
{
	Buffer		vmbuffer = InvalidBuffer;
	uint8	   *bits;
	BlockNumber blkno;
	bool		any = false;

	*nblocks = RelationGetNumberOfBlocks(rel);
	if (*nblocks == 0)
		return NULL;
	bits = palloc_extended(*nblocks / 8 + 1, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (blkno = 0; blkno < *nblocks; blkno++)
	{
		if (blkno % 1024 == 0)
			CHECK_FOR_INTERRUPTS();
		if ((visibilitymap_get_status(rel, blkno, &vmbuffer) &
			 VISIBILITYMAP_ALL_VISIBLE) == 0)
		{
			bits[blkno / 8] |= 1 << (blkno % 8);
			any = true;
		}
	}
	if (BufferIsValid(vmbuffer))
		ReleaseBuffer(vmbuffer);
	if (!any)
	{
		pfree(bits);
		return NULL;
	}
	return bits;
}

/* VACUUM's cost delay, between the pages re-laid */
static void
slim_vacuum_delay(BlockNumber blkno)
{
	slim_vacuum_delay_point();
}

/*
 * relation_vacuum: heap's VACUUM, then the re-layout of the pages that
 * were not all-visible before it.
 */
void
slim_relation_vacuum(Relation rel, SLIM_VACUUM_PARAMS params,
					 BufferAccessStrategy bstrategy)
{
	bool		relays = slim_vacuum_relays(rel, params);
	uint8	   *changed = NULL;
	BlockNumber nblocks = 0;
	List	   *skipped = NIL;
	uint64		relaid = 0;

	if (relays)
		changed = slim_vacuum_changed_blocks(rel, &nblocks);
	slim_heap_routine->relation_vacuum(rel, params, bstrategy);
	if (changed == NULL)
		return;
	if (slim_vacuum_failsafe_active(rel))
	{
		pfree(changed);
		return;
	}

	nblocks = Min(nblocks, RelationGetNumberOfBlocks(rel));	/* truncated? */
	slim_progress_start(SLIM_PROGRESS_VACUUM, RelationGetRelid(rel), nblocks);
	slim_relayout_compact(rel, 0, nblocks, changed, slim_vacuum_delay,
						  &skipped, &relaid);
	slim_progress_end();
	if ((params->options & VACOPT_VERBOSE) != 0)
		ereport(INFO,
				(errmsg("table \"%s\": %llu rows re-laid in place into their compressed form, %d pages skipped (pinned)",
						RelationGetRelationName(rel),
						(unsigned long long) relaid, list_length(skipped))));
	pfree(changed);
	list_free(skipped);
}
