/*-------------------------------------------------------------------------
 *
 * slim_release.c
 *	  CALL slimheap.release(): a slimheap table becomes heap again, same
 *	  file, online.
 *
 * Heap cannot read a row with a compressed tail; every other form of
 * slimheap's is a legal heap row (T1).  So the table may become heap in
 * the catalog once no row version anybody can read has a tail
 * (docs/release.md has the argument, each step against PostgreSQL's
 * readers of stored rows):
 *	1. one short ACCESS EXCLUSIVE lock (tries, as adopt's) sets the mode to
 *	   truncate, and a session SHARE UPDATE EXCLUSIVE lock keeps it so to
 *	   the end: from the commit on, no backend writes a tail;
 *	2. the row versions with a tail are re-laid in place without one (the
 *	   re-layout of index builds and compact), 1,024 pages a transaction;
 *	3. live rows whose page has no room are stored again (UPDATEs of the
 *	   same values, each in a transaction of its own);
 *	4. the pages still holding tail versions (old versions that older
 *	   snapshots may see, pinned pages) are visited again once a second,
 *	   pruned and re-laid, until none is left, or `wait` has passed;
 *	5. a second lock cycle changes the access method and removes the
 *	   slimheap options.
 * A partitioned table releases its slimheap partitions (and from 17 on
 * its own access method).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_release.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "commands/defrem.h"
#include "commands/tablecmds.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "slim_am.h"
#include "slim_compact_position.h"
#include "slim_compat.h"
#include "slim_index.h"
#include "slim_options.h"
#include "slim_relayout.h"
#include "slim_tail.h"
#include "slim_wal.h"
#include "slimheap.h"

PG_FUNCTION_INFO_V1(slimheap_release);

/* pages re-laid between commits */
#define SLIM_RELEASE_BATCH		1024
/* the pause between visits of the pages still holding tail versions */
#define SLIM_RELEASE_NAP_MS		1000

typedef struct SlimRelease
{
	Oid			relid;			/* the table CALLed with */
	Oid			slim_am;
	int64		wait_ms;
	List	   *members;		/* locked at each switch: relid, partitions */
	List	   *leaves;			/* the slimheap tables among them */
	uint64		relaid;
	uint64		moved;
} SlimRelease;

/* a new transaction; its moves read at READ COMMITTED, as CIC's do */
static void
slim_release_commit(void)
{
	SPI_commit();
	XactIsoLevel = XACT_READ_COMMITTED;
}

/* the checks of a table to release, before its lock and under it */
static void
slim_release_check(Oid relid, Form_pg_class form, Oid slim_am)
{
	const char *name = NameStr(form->relname);

	if (form->relkind == RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", name),
				 errhint("ALTER MATERIALIZED VIEW ... SET ACCESS METHOD heap rewrites it.")));
	if (form->relkind != RELKIND_RELATION &&
		form->relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", name),
				 errdetail("slimheap.release() takes slimheap tables only.")));
	if (form->relpersistence == RELPERSISTENCE_TEMP &&
		!isTempOrTempToastNamespace(form->relnamespace))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot release temporary tables of other sessions")));
	if (!slim_relation_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, name);
	if (form->relkind == RELKIND_RELATION && form->relam != slim_am)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("table \"%s\" does not use access method slimheap",
						name),
				 errdetail("Its access method is %s.",
						   get_am_name(form->relam))));
}

static void
slim_release_check_oid(Oid relid, Oid slim_am)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));

	if (!HeapTupleIsValid(tuple))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	slim_release_check(relid, (Form_pg_class) GETSTRUCT(tuple), slim_am);
	ReleaseSysCache(tuple);
}

/* relid, or a partitioned table and all its partitions, parents first */
static List *
slim_release_members(Oid relid)
{
	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		return list_make1_oid(relid);
	return find_all_inheritors(relid, NoLock, NULL);
}

/*
 * ACCESS EXCLUSIVE lock of the members, as they were when called (and of
 * the TOAST tables to switch, with_toast)
 */
static void
slim_release_lock(SlimRelease *st, bool with_toast)
{
	List	   *relids = list_copy(st->members);
	ListCell   *lc;

	/* and the TOAST tables step 5 changes, in the same tries */
	foreach(lc, with_toast ? st->leaves : NIL)
	{
		Oid			toast_am;
		Oid			toastoid = slim_toast_of(lfirst_oid(lc), &toast_am);

		if (OidIsValid(toastoid) && toast_am == st->slim_am)
			relids = lappend_oid(relids, toastoid);
	}
	slim_switch_lock(relids, st->wait_ms, "release");
	list_free(relids);
	if (!equal(st->members, slim_release_members(st->relid)))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the partitions of \"%s\" changed while slimheap.release() ran",
						get_rel_name(st->relid)),
				 errhint("Call slimheap.release() again.")));
	slim_release_check_oid(st->relid, st->slim_am);
}

/*
 * Step 1: under ACCESS EXCLUSIVE lock, every slimheap member in truncate
 * mode (full stays full), and locked SHARE UPDATE EXCLUSIVE for the
 * session, which keeps its mode (and VACUUM, compact, CONCURRENTLY) away
 * to the end; an error releases the session locks with the transaction.
 */
static void
slim_release_begin(SlimRelease *st, MemoryContext cxt)
{
	ListCell   *lc;

	slim_release_lock(st, false);
	foreach(lc, st->members)
	{
		Relation	rel = relation_open(lfirst_oid(lc), NoLock);

		if (rel->rd_rel->relkind == RELKIND_RELATION &&
			rel->rd_rel->relam == st->slim_am)
		{
			MemoryContext oldcxt;

			slim_release_check(RelationGetRelid(rel), rel->rd_rel,
							   st->slim_am);
			CheckTableNotInUse(rel, "slimheap.release()");
			if (slim_get_relinfo(rel)->options.null_bitmap ==
				SLIM_NULL_BITMAP_COMPRESS)
				(void) slim_store_entries(RelationGetRelid(rel),
										  slim_apply_entry(slim_stored_entries(RelationGetRelid(rel)),
														   SLIM_OPTION_NAMESPACE ".null_bitmap=truncate",
														   false));
			LockRelationIdForSession(&rel->rd_lockInfo.lockRelId,
									 ShareUpdateExclusiveLock);
			oldcxt = MemoryContextSwitchTo(cxt);
			st->leaves = lappend_oid(st->leaves, RelationGetRelid(rel));
			MemoryContextSwitchTo(oldcxt);
		}
		else if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE &&
				 !slim_relation_ownercheck(RelationGetRelid(rel), GetUserId()))
			aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE,
						   RelationGetRelationName(rel));
		relation_close(rel, NoLock);
	}
	slim_release_commit();
}

/* the row versions with a tail on the pages of blocks, in cxt */
static List *
slim_release_tail_tids(Relation rel, const List *blocks, MemoryContext cxt)
{
	List	   *tids = NIL;
	const ListCell *lc;

	foreach(lc, blocks)
	{
		BlockNumber blkno = (BlockNumber) lfirst_int(lc);
		Buffer		buf = ReadBuffer(rel, blkno);
		Page		page;
		OffsetNumber off;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		for (off = FirstOffsetNumber; off <= PageGetMaxOffsetNumber(page);
			 off++)
		{
			ItemId		lp = PageGetItemId(page, off);
			ItemPointer tid;

			if (!ItemIdIsNormal(lp) ||
				!SlimHeaderHasTail((HeapTupleHeader) PageGetItem(page, lp)))
				continue;
			tid = MemoryContextAlloc(cxt, sizeof(ItemPointerData));
			ItemPointerSet(tid, blkno, off);
			tids = lappend(tids, tid);
		}
		UnlockReleaseBuffer(buf);
	}
	return tids;
}

/*
 * Store the row at tid again, waiting for the transactions that lock it
 * until deadline at most
 */
static uint64
slim_release_move_one(Oid relid, ItemPointer tid, TimestampTz deadline)
{
	MemoryContext cxt = CurrentMemoryContext;
	Relation	rel = table_open(relid, ShareUpdateExclusiveLock);
	long		secs;
	int			usecs;
	char		setting[32];
	uint64		moved = 0;

	TimestampDifference(GetCurrentTimestamp(), deadline, &secs, &usecs);
	/* lock_timeout takes at most INT_MAX ms (about 24 days) */
	snprintf(setting, sizeof(setting), "%dms",
			 (int) Min(Max((int64) secs * 1000 + usecs / 1000, 1), (int64) INT_MAX));
	/* this transaction's only: undone at its end */
	(void) set_config_option("lock_timeout", setting, PGC_USERSET,
							 PGC_S_SESSION, GUC_ACTION_LOCAL, true, 0, false);
	PG_TRY();
	{
		moved = slim_move_row_at(rel, tid, NULL, true);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_LOCK_NOT_AVAILABLE)
			PG_RE_THROW();
		FlushErrorState();
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("could not release table \"%s\": storing row (%u,%u) again waited longer than the wait allowed",
						get_rel_name(relid), ItemPointerGetBlockNumber(tid),
						ItemPointerGetOffsetNumber(tid)),
				 errdetail("The row has a compressed tail and no room on its page, so release stores it again, which waits for the locks an UPDATE waits for: another transaction's lock of the row, most often."),
				 errhint("The table stays slimheap, in truncate mode. Call slimheap.release() again when that transaction is done, or with a longer wait.")));
	}
	PG_END_TRY();
	table_close(rel, NoLock);
	return moved;
}

/*
 * Step 3: the rows with a tail on the pages of left that are visible now
 * (the others are old versions, or were never committed) stored again,
 * each in a transaction of its own: a move never holds one row's lock
 * while it waits for a writer of another, so it cannot deadlock with them.
 * A row locked past deadline fails the call.
 */
static void
slim_release_move(SlimRelease *st, Oid relid, const List *left,
				  TimestampTz deadline, MemoryContext cxt)
{
	Relation	rel = table_open(relid, ShareUpdateExclusiveLock);
	List	   *tids = slim_release_tail_tids(rel, left, cxt);
	ListCell   *lc;

	table_close(rel, NoLock);
	if (tids == NIL)
		return;
	slim_progress_phase(SLIM_PHASE_MOVING, -1);
	foreach(lc, tids)
	{
		slim_release_commit();
		st->moved += slim_release_move_one(relid, (ItemPointer) lfirst(lc),
										   deadline);
	}
	list_free_deep(tids);
	slim_release_commit();
}

/*
 * The sessions that hold a snapshot, as "pid, pid": the old versions left
 * may be visible to any of them (also to a transaction's xid without a
 * snapshot, which has no PID here)
 */
static char *
slim_release_old_snapshots(void)
{
	StringInfoData buf;
	VirtualTransactionId *vxids;
	int			n;
	int			i;

	initStringInfo(&buf);
	vxids = GetCurrentVirtualXIDs(InvalidTransactionId, true, false,
								  PROC_IN_VACUUM, &n);
	for (i = 0; i < n; i++)
	{
		int			pid = slim_vxid_pid(vxids[i]);

		/* a prepared transaction: the message names those in general */
		if (pid != 0)
			appendStringInfo(&buf, "%s%d", buf.len > 0 ? ", " : "", pid);
	}
	pfree(vxids);
	return buf.data;
}

static void
slim_release_nap(void)
{
	int			i;

	for (i = 0; i < SLIM_RELEASE_NAP_MS / 100; i++)
	{
		CHECK_FOR_INTERRUPTS();
		pg_usleep(100000L);
	}
	CHECK_FOR_INTERRUPTS();
}

/*
 * Step 4: the pages still holding tail versions visited again, the rows
 * of those without room stored again first (a pinned page's rows wait
 * for the pin to go: storing them again would put the new versions on
 * the same page, which then still holds the old ones), pruned and
 * re-laid, until none is left; an error after wait_ms
 */
static void
slim_release_settle(SlimRelease *st, Oid relid, List *short_of_room,
					List *pinned, MemoryContext cxt)
{
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   st->wait_ms);

	while (short_of_room != NIL || pinned != NIL)
	{
		List	   *pages;
		Relation	rel;
		MemoryContext oldcxt;

		slim_release_move(st, relid, short_of_room, deadline, cxt);
		oldcxt = MemoryContextSwitchTo(cxt);
		pages = list_concat(short_of_room, pinned);
		list_free(pinned);		/* concatenated as a copy */
		short_of_room = pinned = NIL;
		rel = table_open(relid, ShareUpdateExclusiveLock);
		slim_progress_phase(SLIM_PHASE_RELAYING, -1);
		slim_relayout_tails(rel, pages, 0, 0, &short_of_room, &pinned,
							&st->relaid);
		table_close(rel, NoLock);
		list_free(pages);
		MemoryContextSwitchTo(oldcxt);
		if (short_of_room == NIL && pinned == NIL)
			break;
		if (GetCurrentTimestamp() >= deadline)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_IN_USE),
					 errmsg("could not release table \"%s\": %d pages still hold row versions with a compressed tail",
							get_rel_name(relid),
							list_length(short_of_room) + list_length(pinned)),
					 list_length(pinned) > 0 ?
					 errdetail("Other sessions keep %d of them pinned (a cursor parked on one, for example); transactions older than the rows stored again may still read the old versions on the others (sessions with PID %s hold snapshots; see also backend_xid in pg_stat_activity, prepared transactions, replication slots and hot_standby_feedback).",
							   list_length(pinned),
							   slim_release_old_snapshots()) :
					 errdetail("Transactions older than the rows stored again may still read their old versions: sessions with PID %s hold snapshots; see also backend_xid in pg_stat_activity, prepared transactions, replication slots and hot_standby_feedback.",
							   slim_release_old_snapshots()),
					 errhint("The table stays slimheap, in truncate mode. Call slimheap.release() again when those transactions are done, or with a longer wait.")));
		slim_release_commit();
		slim_progress_phase(SLIM_PHASE_OLD_SNAPSHOTS, -1);
		slim_release_nap();
	}
	slim_release_commit();
}

/* steps 2 to 4 for one slimheap table */
static void
slim_release_rows(SlimRelease *st, Oid relid, MemoryContext cxt)
{
	List	   *short_of_room = NIL;
	List	   *pinned = NIL;
	BlockNumber blkno = 0;

	slim_progress_start(SLIM_PROGRESS_RELEASE, relid, 0);
	for (;;)
	{
		Relation	rel = table_open(relid, ShareUpdateExclusiveLock);
		BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
		BlockNumber end = Min(blkno + SLIM_RELEASE_BATCH, nblocks);
		MemoryContext oldcxt;

		slim_progress_phase(SLIM_PHASE_RELAYING, nblocks);
		oldcxt = MemoryContextSwitchTo(cxt);
		if (blkno < end)
			slim_relayout_tails(rel, NIL, blkno, end, &short_of_room, &pinned,
								&st->relaid);
		MemoryContextSwitchTo(oldcxt);
		table_close(rel, NoLock);
		slim_release_commit();
		blkno = end;
		if (blkno >= nblocks)
			break;
	}
	slim_release_settle(st, relid, short_of_room, pinned, cxt);
	slim_progress_end();
}

/*
 * A TOAST table made before slimheap gave its tables heap's
 * (slim_toast_am.c) has slimheap's access method: heap's now, or VACUUM
 * FULL of the heap table would swap it with a heap one and fail, and DROP
 * EXTENSION would leave it without one.  Its rows are heap's (the toaster
 * writes them with heap_insert()).
 */
static void
slim_release_toast(Oid relid, Oid slim_am)
{
	Oid			toast_am;
	Oid			toastoid = slim_toast_of(relid, &toast_am);

	/* locked in slim_release_lock()'s tries */
	if (!OidIsValid(toastoid) || toast_am != slim_am)
		return;
	LockRelationOid(toastoid, AccessExclusiveLock);
	slim_switch_relam(toastoid, HEAP_TABLE_AM_OID);
}

/*
 * Step 5: under ACCESS EXCLUSIVE lock, access method heap and no slimheap
 * option for every table released (and a partitioned table that had
 * slimheap, from 17 on); then the session locks go.
 */
static void
slim_release_switch(SlimRelease *st)
{
	ListCell   *lc;

	slim_release_lock(st, true);
	foreach(lc, st->members)
	{
		Oid			relid = lfirst_oid(lc);
		Relation	rel = relation_open(relid, NoLock);
		bool		leaf = list_member_oid(st->leaves, relid);
		bool		parent = rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE &&
			rel->rd_rel->relam == st->slim_am;

		if (leaf)
			CheckTableNotInUse(rel, "slimheap.release()");
		relation_close(rel, NoLock);
		if (leaf || parent)
			slim_switch_relam(relid, HEAP_TABLE_AM_OID);
		if (leaf)
		{
			slim_release_toast(relid, st->slim_am);
			(void) slim_store_entries(relid, NIL);
			slim_compact_position_forget(relid);
		}
	}
	slim_release_commit();
	foreach(lc, st->leaves)
	{
		LockRelId	lockid;

		lockid.dbId = MyDatabaseId;
		lockid.relId = lfirst_oid(lc);
		UnlockRelationIdForSession(&lockid, ShareUpdateExclusiveLock);
	}
}

/*
 * CALL slimheap.release(rel regclass, wait interval)
 */
Datum
slimheap_release(PG_FUNCTION_ARGS)
{
	SlimRelease st;
	MemoryContext callercxt;
	MemoryContext cxt;
	ListCell   *lc;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the arguments of slimheap.release() must not be NULL")));
	if (fcinfo->context == NULL || !IsA(fcinfo->context, CallContext) ||
		((CallContext *) fcinfo->context)->atomic)
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("slimheap.release() cannot run inside a transaction block"),
				 errdetail("It commits as it goes, so that its locks are held for moments and no snapshot holds back VACUUM."),
				 errhint("CALL it on its own (also not from a function).")));
	memset(&st, 0, sizeof(st));
	st.relid = PG_GETARG_OID(0);
	st.wait_ms = slim_switch_wait_ms(PG_GETARG_INTERVAL_P(1));
	if (!slim_wal_registered())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("slimheap.release() needs slimheap in shared_preload_libraries"),
				 errdetail("It logs the rows it re-lays in a WAL record of slimheap's own.")));
	st.slim_am = get_am_oid("slimheap", false);
	slim_release_check_oid(st.relid, st.slim_am);

	/* what must outlive the commits */
	callercxt = CurrentMemoryContext;
	cxt = AllocSetContextCreate(TopMemoryContext, "slimheap release",
								ALLOCSET_SMALL_SIZES);
	PG_TRY();
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(cxt);

		st.members = slim_release_members(st.relid);
		MemoryContextSwitchTo(oldcxt);
		SPI_connect_ext(SPI_OPT_NONATOMIC);
		slim_release_begin(&st, cxt);
		foreach(lc, st.leaves)
			slim_release_rows(&st, lfirst_oid(lc), cxt);
		slim_release_switch(&st);
		SPI_finish();
	}
	PG_FINALLY();
	{
		/* an error may have left cxt (or a child of it) current */
		MemoryContextSwitchTo(callercxt);
		slim_progress_end();
		MemoryContextDelete(cxt);
	}
	PG_END_TRY();

	ereport(NOTICE,
			(errmsg("released table \"%s\": %llu rows re-laid in place, %llu stored again; its access method is heap",
					get_rel_name(st.relid), (unsigned long long) st.relaid,
					(unsigned long long) st.moved)));
	PG_RETURN_VOID();
}
