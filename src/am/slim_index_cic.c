/*-------------------------------------------------------------------------
 *
 * slim_index_cic.c
 *	  CREATE INDEX CONCURRENTLY on a compress table: before core's first
 *	  phase commits the index to the catalog, every row keeps the columns
 *	  the index reads in its prefix (rule R).
 *
 * From that commit on, writers' heap_update() counts the new index's
 * columns for HOT and for the key-lock mode and reads them from the old
 * row's prefix; a row whose compressed tail hides such a value would be
 * decided on a value heap does not see (docs/row-floor.md §4, §8).  So,
 * in the utility hook, before core runs the statement:
 *
 *	1. the index's attributes are registered (slim_floor_registry.c) and
 *	   the table's cached facts invalidated, so that every transaction that
 *	   locks the table from then on forms rows with them in the floor;
 *	2. the table's SHARE UPDATE EXCLUSIVE lock is taken for the session, as
 *	   core's build takes it, and the transaction commits;
 *	3. the transactions that could write with the old floor are waited
 *	   for (WaitForLockers(ShareLock), as core's first wait);
 *	4. the rows that hide a registered value are re-laid out in place, and
 *	   those that do not fit stored again (no index reads them yet: plain
 *	   updates of the same values), each in a transaction of its own;
 *	5. core's statement runs; its first phase commits with every row
 *	   obeying R.  The registration ends with the statement: the catalog
 *	   lists the index by then, or the statement failed.
 *
 * Only when slimheap is preloaded (the registry lives in shared memory);
 * otherwise the build's own re-layout and its check of HOT chains
 * (slim_index_build.c) stand alone, as before.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_index_cic.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "commands/progress.h"
#include "commands/tablecmds.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/lmgr.h"
#include "utils/backend_progress.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "slim_compat.h"
#include "slim_heap_slot.h"
#include "slim_index.h"
#include "slim_relayout.h"
#include "slim_tail.h"
#include "slimheap.h"

/* the table this backend's statement prepared, locked for the session */
static LockRelId slim_cic_lockrelid;
static bool slim_cic_prepared = false;
/* the snapshot pushed for core's statement to pop */
static Snapshot slim_cic_snapshot = NULL;
/* the attributes registered (TopMemoryContext) */
static Bitmapset *slim_cic_attrs = NULL;

/*
 * The attributes the new index reads that rel's rows may hide today, or
 * NULL when there are none (not a compress table, or no row keeps a tail).
 */
static Bitmapset *
slim_cic_new_attrs(Relation rel, IndexStmt *stmt, const char *queryString,
				   int *last)
{
	int			natts = RelationGetDescr(rel)->natts;
	Bitmapset  *attrs;
	Bitmapset  *indexed;
	bool		whole_row;
	int			x = -1;

	if (rel->rd_rel->relkind != RELKIND_RELATION ||
		rel->rd_rel->relpersistence == RELPERSISTENCE_TEMP ||
		!slim_is_slimheap_relation(rel) ||
		slim_get_relinfo(rel)->options.null_bitmap != SLIM_NULL_BITMAP_COMPRESS ||
		slim_get_relinfo(rel)->rewrite_prefix_floor->base >= natts)
		return NULL;

	attrs = slim_index_stmt_attrs(RelationGetRelid(rel), stmt, queryString);
	indexed = slim_index_attr_bitmap(rel);
	attrs = bms_del_members(attrs, indexed);
	bms_free(indexed);
	/* the first attributes are in every row's prefix */
	while ((x = bms_next_member(attrs, x)) >= 0)
	{
		int			attnum = x + FirstLowInvalidHeapAttributeNumber;

		if (attnum > 0 && attnum <= SLIM_FREE_PREFIX_NATTS)
			attrs = bms_del_member(attrs, x);
	}
	*last = slim_attrs_last(attrs, natts, &whole_row);
	if (*last == 0)
	{
		bms_free(attrs);
		return NULL;
	}
	return attrs;
}

/* keep attrs for slim_index_cic_after(), past the statement's commits */
static void
slim_cic_keep_attrs(const Bitmapset *attrs)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(TopMemoryContext);

	bms_free(slim_cic_attrs);
	slim_cic_attrs = bms_copy(attrs);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * Commit, and go on in a new transaction in the caller's memory context.
 * The transactions of steps 3 and 4 (own) read at READ COMMITTED whatever
 * the session's default: a SERIALIZABLE one would take part in other
 * transactions' serialization checks, which heap's build does not.
 */
static void
slim_cic_commit(MemoryContext callercxt, bool own)
{
	if (ActiveSnapshotSet())
		PopActiveSnapshot();
	CommitTransactionCommand();
	StartTransactionCommand();
	if (own)
		XactIsoLevel = XACT_READ_COMMITTED;
	MemoryContextSwitchTo(callercxt);
}

/*
 * The rows of rel, visible now, whose prefix hides a value of attrs, in
 * cxt: the rows the in-place re-layout could not fit on their page.
 */
static ItemPointer
slim_cic_hiding_rows(Relation rel, const Bitmapset *attrs, bool whole_row,
					 int last, MemoryContext cxt, int *nrows)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Snapshot	snapshot = RegisterSnapshot(GetLatestSnapshot());
	TupleTableSlot *slot = slim_stored_form_slot(desc);
	TableScanDesc scan = table_beginscan_strat(rel, snapshot, 0, NULL,
											   true, false);
	int			size = 64;
	ItemPointer rows = MemoryContextAlloc(cxt, size * sizeof(ItemPointerData));

	*nrows = 0;
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		HeapTuple	tuple = ((BufferHeapTupleTableSlot *) slot)->base.tuple;

		CHECK_FOR_INTERRUPTS();
		if (HeapTupleHeaderGetNatts(tuple->t_data) >= last ||
			!slim_tail_hides(tuple->t_data, desc, attrs, whole_row))
			continue;
		if (*nrows == size)
		{
			size *= 2;
			rows = repalloc(rows, size * sizeof(ItemPointerData));
		}
		rows[(*nrows)++] = tuple->t_self;
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	UnregisterSnapshot(snapshot);
	return rows;
}

/*
 * Steps 3 and 4: wait for the old writers, re-lay out in place the rows
 * that hide a registered value, and store again those that do not fit,
 * each in a transaction of its own: a move never holds one row's lock
 * while it waits for a writer of another row, so it cannot deadlock with
 * the writers, and it holds up a writer of that row only until its
 * commit.  Ends in a transaction.
 */
static void
slim_cic_settle_rows(Oid relid, const Bitmapset *new_attrs, int new_last,
					 MemoryContext callercxt)
{
	LOCKTAG		tag;
	Relation	rel;
	Bitmapset  *attrs;
	bool		whole_row;
	int			last;
	uint64		relaid = 0;
	ItemPointer rows = NULL;
	int			nrows = 0;
	uint64		moved = 0;
	int			i;

	pgstat_progress_start_command(PROGRESS_COMMAND_CREATE_INDEX, relid);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_COMMAND,
								 PROGRESS_CREATEIDX_COMMAND_CREATE_CONCURRENTLY);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_PHASE,
								 PROGRESS_CREATEIDX_PHASE_WAIT_1);
	SET_LOCKTAG_RELATION(tag, slim_cic_lockrelid.dbId, relid);
	slim_progress_start(SLIM_PROGRESS_INDEX, relid, 0);
	slim_progress_phase(SLIM_PHASE_WAITING, -1);
	WaitForLockers(tag, ShareLock, true);
	pgstat_progress_end_command();

	rel = table_open(relid, ShareUpdateExclusiveLock);
	/* the session lock kept out every change of its mode since */
	Assert(slim_is_slimheap_relation(rel));
	attrs = bms_union(slim_index_attr_bitmap(rel), new_attrs);
	whole_row = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs);
	last = Max(slim_index_natts(rel), new_last);
	if (!slim_relayout_possible(rel) ||
		!slim_relayout_table(rel, attrs, whole_row, last, &relaid))
		rows = slim_cic_hiding_rows(rel, attrs, whole_row, last, callercxt,
									&nrows);
	table_close(rel, NoLock);

	slim_progress_phase(SLIM_PHASE_MOVING, -1);
	for (i = 0; i < nrows; i++)
	{
		slim_cic_commit(callercxt, true);
		rel = table_open(relid, ShareUpdateExclusiveLock);
		moved += slim_move_row_at(rel, &rows[i], attrs, whole_row);
		table_close(rel, NoLock);
	}
	if (rows != NULL)
		pfree(rows);
	slim_progress_end();
	ereport(DEBUG1,
			(errmsg_internal("slimheap: before the concurrent build on \"%s\", " UINT64_FORMAT " rows re-laid in place, " UINT64_FORMAT " stored again",
							 get_rel_name(relid), relaid, moved)));
	bms_free(attrs);
}

/*
 * Before core runs a utility statement: if it is CREATE INDEX
 * CONCURRENTLY on a compress table whose rows may hide what the index
 * reads, steps 1 to 4 above.  Returns whether it did; if so, and only
 * then (a statement nested in it, an event trigger's, must not end its
 * registration), the caller calls slim_index_cic_after() when core's
 * statement has ended, however it ended.  The statement's checks come first, as core makes them (the
 * transaction block, the table's lookup, lock and owner).
 */
bool
slim_index_cic_before(Node *parsetree, const char *queryString,
					  ProcessUtilityContext context)
{
	IndexStmt  *stmt = (IndexStmt *) parsetree;
	MemoryContext callercxt = CurrentMemoryContext;
	Oid			relid;
	Relation	rel;
	Bitmapset  *attrs;
	int			last = 0;

	if (!IsA(parsetree, IndexStmt) || !stmt->concurrent || stmt->transformed ||
		!slim_floor_registry_available())
		return false;
	/* core refuses these itself, with its own message */
	if (context != PROCESS_UTILITY_TOPLEVEL || IsTransactionBlock() ||
		(MyXactFlags & XACT_FLAGS_PIPELINING) != 0)
		return false;
	relid = RangeVarGetRelidExtended(stmt->relation, ShareUpdateExclusiveLock,
									 RVR_MISSING_OK,
									 RangeVarCallbackOwnsRelation, NULL);
	if (!OidIsValid(relid))
		return false;
	rel = table_open(relid, NoLock);
	/* IF NOT EXISTS of an index that exists: core only says so */
	if (stmt->if_not_exists && stmt->idxname != NULL &&
		OidIsValid(get_relname_relid(stmt->idxname,
									 RelationGetNamespace(rel))))
	{
		table_close(rel, NoLock);
		return false;
	}
	attrs = slim_cic_new_attrs(rel, stmt, queryString, &last);
	if (attrs == NULL)
	{
		table_close(rel, NoLock);
		return false;
	}

	/* step 1 and 2 */
	slim_floor_register(relid, attrs);
	slim_cic_prepared = true;
	slim_cic_keep_attrs(attrs);
	PG_TRY();
	{
		CacheInvalidateRelcache(rel);
		slim_cic_lockrelid = rel->rd_lockInfo.lockRelId;
		LockRelationIdForSession(&slim_cic_lockrelid,
								 ShareUpdateExclusiveLock);
		table_close(rel, NoLock);
		slim_cic_commit(callercxt, true);

		slim_cic_settle_rows(relid, attrs, last, callercxt);
		slim_cic_commit(callercxt, false);
	}
	PG_CATCH();
	{
		/* the caller does not know of the registration yet */
		slim_index_cic_after(false);
		PG_RE_THROW();
	}
	PG_END_TRY();
	/* core's statement pops the snapshot it finds, as the portal's */
	PushActiveSnapshot(GetTransactionSnapshot());
	slim_cic_snapshot = GetActiveSnapshot();
	bms_free(attrs);
	return true;
}

/*
 * After core's statement: the registration ends (the catalog lists the
 * index now, or there is no index), and so does the session lock, which
 * an error's abort releases by itself.
 */
void
slim_index_cic_after(bool done)
{
	if (!slim_cic_prepared)
		return;
	slim_cic_prepared = false;
	slim_floor_unregister();
	if (!done)
		return;
	/* the index is there: its columns go to the option, under this lock */
	if (IsTransactionState())
		slim_index_columns_merge(slim_cic_lockrelid.relId, slim_cic_attrs);
	UnlockRelationIdForSession(&slim_cic_lockrelid, ShareUpdateExclusiveLock);
	/* a statement that ended early (a hook's) left it; the portal will not */
	if (ActiveSnapshotSet() && GetActiveSnapshot() == slim_cic_snapshot)
		PopActiveSnapshot();
	slim_cic_snapshot = NULL;
}
