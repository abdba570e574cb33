/*-------------------------------------------------------------------------
 *
 * slim_adopt.c
 *	  CALL slimheap.adopt(): a heap table becomes slimheap without a
 *	  rewrite, catalog only.
 *
 * slimheap stores heap's pages, and heap never sets the tail bit: every
 * heap row (short rows from ADD COLUMN included) is a valid slimheap row
 * in every mode.  So a heap table becomes slimheap by its catalog alone:
 * pg_class.relam, its pg_depend entry on the access method and the mode in
 * reloptions change in one transaction, the file stays.  Rows written from
 * then on take the mode's form; existing rows keep heap's until rewritten
 * or re-laid.
 *
 * The lock is ACCESS EXCLUSIVE: a backend that holds any lock of the table
 * when the change commits would not accept the invalidation when it locks
 * it again, and could go on reading with heap's routine rows written with
 * tails.  It is taken the way pg_repack takes its swap lock: tries with a
 * short lock_timeout (100 ms, doubling to 1 s) in a subtransaction that
 * catches the timeout, so that the sessions queued behind a try wait about
 * as long as the try, even while a long transaction holds the table; after
 * `wait`, an error that names the sessions in the way.  Other sessions'
 * work is never cancelled.  CALL outside a transaction block and outside
 * functions only, and it commits at its end (a CALL from a DO block goes
 * on in a new transaction), so the lock is held for the catalog change
 * alone.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_adopt.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_class.h"
#include "catalog/objectaccess.h"
#include "commands/defrem.h"
#include "commands/tablecmds.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "slim_compat.h"
#include "slim_options.h"
#include "slim_wal.h"
#include "slimheap.h"

PG_FUNCTION_INFO_V1(slimheap_adopt);

/* the checks of a table to adopt, before its lock is taken */
static void
slim_adopt_check(Oid relid, Form_pg_class form)
{
	const char *name = NameStr(form->relname);

	if (form->relkind != RELKIND_RELATION &&
		form->relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", name),
				 errdetail("slimheap.adopt() takes heap tables only.")));
	if (form->relpersistence == RELPERSISTENCE_TEMP &&
		!isTempOrTempToastNamespace(form->relnamespace))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot adopt temporary tables of other sessions")));
	if (IsSystemClass(relid, form))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied: \"%s\" is a system catalog", name)));
	if (!slim_relation_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, name);
	if (form->relkind == RELKIND_RELATION && form->relam != HEAP_TABLE_AM_OID)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("table \"%s\" does not use access method heap", name),
				 errdetail("Its access method is %s.",
						   get_am_name(form->relam))));
}

/* a table's catalog: access method slimheap, the mode stored */
static void
slim_adopt_table(Relation rel, Oid slim_am, const char *mode)
{
	Oid			relid = RelationGetRelid(rel);
	List	   *entries;

	CheckTableNotInUse(rel, "slimheap.adopt()");
	slim_switch_relam(relid, slim_am);
	entries = slim_apply_entry(slim_stored_entries(relid),
							   psprintf("%s.null_bitmap=%s",
										SLIM_OPTION_NAMESPACE, mode),
							   false);
	(void) slim_store_entries(relid, entries);
}

/*
 * The relations adopting relid changes: relid itself, or for a partitioned
 * table, it and all its partitions (find_all_inheritors() order: parents
 * first, as core locks them)
 */
static List *
slim_adopt_members(Oid relid)
{
	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		return list_make1_oid(relid);
	return find_all_inheritors(relid, NoLock, NULL);
}

/*
 * Adopt one member (locked): a heap table is adopted (another access
 * method is an error); a partitioned table gets the access method from 17
 * on (new partitions then get it); slimheap tables (a partition adopted
 * before) and foreign tables are left as they are.
 */
static void
slim_adopt_member(Oid relid, Oid slim_am, const char *mode, bool *parent_kept)
{
	Relation	rel = relation_open(relid, NoLock);
	char		relkind = rel->rd_rel->relkind;

	if (relkind == RELKIND_RELATION && rel->rd_rel->relam != slim_am)
	{
		slim_adopt_check(relid, rel->rd_rel);
		slim_adopt_table(rel, slim_am, mode);
	}
	else if (relkind == RELKIND_PARTITIONED_TABLE)
	{
		if (!slim_relation_ownercheck(relid, GetUserId()))
			aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE,
						   RelationGetRelationName(rel));
		if (SLIM_PARTITIONED_HAS_AM)
			slim_switch_relam(relid, slim_am);
		else
			*parent_kept = true;
	}
	relation_close(rel, NoLock);
}

/* the mode named, checked as the option's values are */
static const char *
slim_adopt_mode(text *mode_text)
{
	char	   *mode = text_to_cstring(mode_text);

	if (strcmp(mode, "compress") != 0 && strcmp(mode, "truncate") != 0 &&
		strcmp(mode, "full") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for slimheap.null_bitmap: \"%s\"", mode),
				 errhint("Valid values are \"full\", \"truncate\" and \"compress\".")));
	return mode;
}

/*
 * CALL slimheap.adopt(rel regclass, mode text, wait interval)
 */
Datum
slimheap_adopt(PG_FUNCTION_ARGS)
{
	Oid			relid;
	const char *mode;
	int64		wait_ms;
	Oid			slim_am;
	HeapTuple	tuple;
	List	   *members;
	ListCell   *lc;
	bool		parent_kept = false;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the arguments of slimheap.adopt() must not be NULL")));
	if (fcinfo->context == NULL || !IsA(fcinfo->context, CallContext) ||
		((CallContext *) fcinfo->context)->atomic)
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("slimheap.adopt() cannot run inside a transaction block"),
				 errdetail("It would hold the table's ACCESS EXCLUSIVE lock until the transaction ends."),
				 errhint("CALL it on its own (also not from a function).")));
	relid = PG_GETARG_OID(0);
	mode = slim_adopt_mode(PG_GETARG_TEXT_PP(1));
	wait_ms = slim_switch_wait_ms(PG_GETARG_INTERVAL_P(2));
	if (!slim_wal_registered())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("slimheap.adopt() needs slimheap in shared_preload_libraries"),
				 errdetail("A server that loads slimheap per session cannot log or replay its WAL records.")));
	slim_am = get_am_oid("slimheap", false);

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	slim_adopt_check(relid, (Form_pg_class) GETSTRUCT(tuple));
	ReleaseSysCache(tuple);

	members = slim_adopt_members(relid);
	slim_switch_lock(members, wait_ms, "adopt");
	/* what it was when checked, now under the lock */
	if (!equal(members, slim_adopt_members(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the partitions of \"%s\" changed while slimheap.adopt() waited for them",
						get_rel_name(relid)),
				 errhint("Call slimheap.adopt() again.")));
	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	slim_adopt_check(relid, (Form_pg_class) GETSTRUCT(tuple));
	ReleaseSysCache(tuple);
	foreach(lc, members)
		slim_adopt_member(lfirst_oid(lc), slim_am, mode, &parent_kept);
	if (parent_kept)
		ereport(NOTICE,
				(errmsg("partitioned table \"%s\" keeps its access method",
						get_rel_name(relid)),
				 errdetail("Its partitions are slimheap now; before PostgreSQL 17 a partitioned table has no access method of its own."),
				 errhint("Create new partitions USING slimheap, or set default_table_access_method.")));

	/* the lock goes now, also when CALLed from a DO block */
	SPI_connect_ext(SPI_OPT_NONATOMIC);
	SPI_commit();
	SPI_finish();

	PG_RETURN_VOID();
}
