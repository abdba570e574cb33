/*-------------------------------------------------------------------------
 *
 * slim_am_switch.c
 *	  A table's access method changed in the catalog alone (adopt,
 *	  release), its ACCESS EXCLUSIVE lock taken in short tries.
 *
 * The lock is ACCESS EXCLUSIVE: a backend that holds any lock of the table
 * when the change commits would not accept the invalidation when it locks
 * it again, and could go on reading with the other access method's
 * routine.  It is taken the way pg_repack takes its swap lock: tries with
 * a short lock_timeout (100 ms, doubling to 1 s) in a subtransaction that
 * catches the timeout, so that the sessions queued behind a try wait about
 * as long as the try, even while a long transaction holds the table; after
 * `wait`, an error that names the sessions in the way.  Other sessions'
 * work is never cancelled.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_am_switch.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "slim_compat.h"
#include "slimheap.h"

/* the longest wait taken: 100 years, in ms */
#define SLIM_SWITCH_MAX_WAIT_MS		INT64CONST(3155760000000)

/* the tries' lock_timeout: from 100 ms, doubling, at most 1 s */
#define SLIM_SWITCH_FIRST_TRY_MS	100
#define SLIM_SWITCH_LAST_TRY_MS		1000

/*
 * The sessions holding locks that conflict with ACCESS EXCLUSIVE on any of
 * relids
 */
static char *
slim_switch_blockers(List *relids)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, relids)
	{
		LOCKTAG		tag;
		VirtualTransactionId *vxids;

		SET_LOCKTAG_RELATION(tag, MyDatabaseId, lfirst_oid(lc));
		vxids = GetLockConflicts(&tag, AccessExclusiveLock, NULL);
		for (; VirtualTransactionIdIsValid(*vxids); vxids++)
		{
			int			pid = slim_vxid_pid(*vxids);

			if (buf.len > 0)
				appendStringInfoString(&buf, ", ");
			/* a prepared transaction has no process */
			if (pid == 0)
				appendStringInfoString(&buf, "0 (a prepared transaction: see pg_prepared_xacts)");
			else
				appendStringInfo(&buf, "%d", pid);
		}
	}
	return buf.data;
}

/*
 * One try for ACCESS EXCLUSIVE lock of every relation of relids (a table,
 * or a partitioned table first and its partitions), giving up after
 * timeout_ms for any of them: in a subtransaction, whose lock_timeout
 * setting ends with it, whose locks, once all granted, pass to this
 * transaction, and whose locks of a failed try are all let go.
 */
static bool
slim_switch_try_lock(List *relids, int timeout_ms)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	bool		locked = false;
	char		setting[32];

	snprintf(setting, sizeof(setting), "%dms", timeout_ms);
	BeginInternalSubTransaction(NULL);
	PG_TRY();
	{
		ListCell   *lc;
		int			nestlevel = NewGUCNestLevel();

		/* the setting is undone here, not passed on by the commit below */
		(void) set_config_option("lock_timeout", setting, PGC_USERSET,
								 PGC_S_SESSION, GUC_ACTION_SAVE, true, 0,
								 false);
		foreach(lc, relids)
			LockRelationOid(lfirst_oid(lc), AccessExclusiveLock);
		AtEOXact_GUC(false, nestlevel);
		ReleaseCurrentSubTransaction();
		locked = true;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (edata->sqlerrcode != ERRCODE_LOCK_NOT_AVAILABLE)
			ReThrowError(edata);
		FreeErrorData(edata);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	return locked;
}

/*
 * ACCESS EXCLUSIVE lock of relids within wait_ms, or an error that says
 * what it was for (verb: "adopt", "release")
 */
void
slim_switch_lock(List *relids, int64 wait_ms, const char *verb)
{
	TimestampTz start = GetCurrentTimestamp();
	int			timeout_ms = SLIM_SWITCH_FIRST_TRY_MS;

	for (;;)
	{
		long		secs;
		int			usecs;

		CHECK_FOR_INTERRUPTS();
		if (slim_switch_try_lock(relids, timeout_ms))
			return;
		TimestampDifference(start, GetCurrentTimestamp(), &secs, &usecs);
		if (secs * 1000 + usecs / 1000 >= wait_ms)
			ereport(ERROR,
					(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
					 errmsg("could not lock table \"%s\" to %s it",
							get_rel_name(linitial_oid(relids)), verb),
					 errdetail("Sessions with PID %s held it for longer than the wait allowed.",
							   slim_switch_blockers(relids)),
					 errhint("Call slimheap.%s() again when they are done, or with a longer wait.",
							 verb)));
		timeout_ms = Min(timeout_ms * 2, SLIM_SWITCH_LAST_TRY_MS);
	}
}

/*
 * relid's row of pg_class: access method new_am, with its dependency on
 * the access method moved (or made: a partitioned table may have none; a
 * TOAST table has none)
 */
void
slim_switch_relam(Oid relid, Oid new_am)
{
	Relation	pgclass = table_open(RelationRelationId, RowExclusiveLock);
	HeapTuple	tuple = SearchSysCacheCopy1(RELOID, ObjectIdGetDatum(relid));
	Oid			old_am;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	old_am = ((Form_pg_class) GETSTRUCT(tuple))->relam;
	((Form_pg_class) GETSTRUCT(tuple))->relam = new_am;
	CatalogTupleUpdate(pgclass, &tuple->t_self, tuple);
	table_close(pgclass, RowExclusiveLock);

	if (((Form_pg_class) GETSTRUCT(tuple))->relkind == RELKIND_TOASTVALUE)
	{
		/* core records no dependency of a TOAST table on its method */
	}
	else if (!OidIsValid(old_am))
	{
		ObjectAddress self;
		ObjectAddress am;

		ObjectAddressSet(self, RelationRelationId, relid);
		ObjectAddressSet(am, AccessMethodRelationId, new_am);
		recordDependencyOn(&self, &am, DEPENDENCY_NORMAL);
	}
	else if (changeDependencyFor(RelationRelationId, relid,
								 AccessMethodRelationId, old_am, new_am) != 1)
		elog(ERROR, "could not change the access method dependency of relation \"%s\"",
			 get_rel_name(relid));
	heap_freetuple(tuple);
	slim_full_files_forget(relid, new_am == HEAP_TABLE_AM_OID ? old_am : new_am);
	InvokeObjectPostAlterHook(RelationRelationId, relid, 0);
	CommandCounterIncrement();
}

/* interval arg as milliseconds, not negative */
int64
slim_switch_wait_ms(Interval *wait)
{
	int64		ms;

	if (wait->month != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("wait must not contain months or years")));
	ms = wait->time / 1000 + (int64) wait->day * 86400000;
	if (ms < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("wait must not be negative")));
	/* a timestamp plus the wait must not overflow: 100 years is forever */
	return Min(ms, SLIM_SWITCH_MAX_WAIT_MS);
}
