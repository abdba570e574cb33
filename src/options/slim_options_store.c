/*-------------------------------------------------------------------------
 *
 * slim_options_store.c
 *	  Storing slimheap.* entries in a relation's pg_class.reloptions, and
 *	  which relations they may be stored on.
 *
 * The DDL hook (slim_options_ddl.c) decides when; this is what it stores
 * and the checks of the target, with their errors.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/options/slim_options_store.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "slim_options.h"

/* slimheap's routine, from slim_options_init() */
static const TableAmRoutine *slim_am_routine = NULL;

void
slim_options_store_init(const TableAmRoutine *routine)
{
	slim_am_routine = routine;
}

/*
 * Whether table access method amoid is slimheap: its handler returns our
 * routine, whatever the access method is called.
 */
bool
slim_options_am_is_slimheap(Oid amoid)
{
	HeapTuple	tuple;
	Form_pg_am	am;
	bool		result;

	if (!OidIsValid(amoid))
		return false;
	tuple = SearchSysCache1(AMOID, ObjectIdGetDatum(amoid));
	if (!HeapTupleIsValid(tuple))
		return false;
	am = (Form_pg_am) GETSTRUCT(tuple);
	result = am->amtype == AMTYPE_TABLE &&
		GetTableAmRoutine(am->amhandler) == slim_am_routine;
	ReleaseSysCache(tuple);
	return result;
}

/*
 * Whether slimheap options apply to the relation called relname of kind
 * relkind, stored by access method amoid: a table or materialized view that
 * uses slimheap.  Other kinds of relation are an error.  On a table or
 * materialized view of another access method the options are ignored with
 * a WARNING (on_create: the statement creates it) and this returns false.
 *
 * Why not an error there: a table that left slimheap without the hook (in a
 * session without the library and without event triggers, e.g. with
 * session_replication_role = replica, or in single-user mode) keeps its
 * slimheap entries, and pg_dump writes them into its CREATE TABLE, which a
 * restore must not lose.  And tools copy a table's options to other tables
 * whose access method they do not choose: pg_partman creates a partition
 * with CREATE TABLE ... (LIKE parent) and then runs ALTER TABLE ... SET
 * (<the template's options>) on it, in one transaction for every partition
 * set of the database, so an error there would stop them all.
 */
bool
slim_options_check_target(const char *relname, char relkind, Oid amoid,
						  bool on_create)
{
	if (relkind == RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot set slimheap options on \"%s\"", relname),
				 errdetail_relkind_not_supported(relkind),
				 errhint("A partitioned table has no storage of its own; set the options on each partition.")));
	if (relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot set slimheap options on \"%s\"", relname),
				 errdetail_relkind_not_supported(relkind)));
	if (slim_options_am_is_slimheap(amoid))
		return true;
	ereport(WARNING,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("slimheap options on \"%s\" are ignored", relname),
			 on_create ?
			 errdetail("\"%s\" does not use access method slimheap; it is created without them.",
					   relname) :
			 errdetail("\"%s\" does not use access method slimheap; its options stay as they are.",
					   relname),
			 on_create ?
			 errhint("Create it with USING slimheap, or convert it later with ALTER TABLE ... SET ACCESS METHOD slimheap, SET (...).") :
			 errhint("Convert it with ALTER TABLE ... SET ACCESS METHOD slimheap, SET (...).")));
	return false;
}

static bool
slim_string_lists_equal(const List *a, const List *b)
{
	ListCell   *la,
			   *lb;

	if (list_length(a) != list_length(b))
		return false;
	forboth(la, a, lb, b)
	{
		if (strcmp(lfirst(la), lfirst(lb)) != 0)
			return false;
	}
	return true;
}

/* whether another transaction, still open, updated or deleted tuple */
static bool
slim_row_being_updated(HeapTuple tuple)
{
	HeapTupleHeader td = tuple->t_data;
	TransactionId xmax;

	if ((td->t_infomask & HEAP_XMAX_INVALID) != 0 ||
		HEAP_XMAX_IS_LOCKED_ONLY(td->t_infomask))
		return false;
	xmax = HeapTupleHeaderGetUpdateXid(td);
	return TransactionIdIsValid(xmax) &&
		!TransactionIdIsCurrentTransactionId(xmax) &&
		TransactionIdIsInProgress(xmax);
}

/*
 * Store entries (NIL: none) as the slimheap part of relid's
 * pg_class.reloptions, or, when entry is not NULL, the stored entries with
 * entry applied (slim_apply_entry()) as read under the row's lock; core's
 * part stays as it is.  Names of no column are left out of
 * slimheap.index_columns (slim_known_index_columns()).  pg_class rows are
 * updated in place too (VACUUM, ANALYZE, index builds): the tuple lock
 * README.tuplock asks for keeps those from being lost, and the row is read
 * again under it, with what others committed meanwhile.
 */
static bool
slim_store_locked(Oid relid, const List *entries, const char *entry,
				  bool is_reset, const List *before)
{
	Relation	pgclass;
	HeapTuple	tuple;
	HeapTuple	newtuple;
	List	   *old_entries;
	List	   *others;
	Datum		newoptions;
	Datum		values[Natts_pg_class];
	bool		nulls[Natts_pg_class];
	bool		replace[Natts_pg_class];
	bool		changed;

	pgclass = table_open(RelationRelationId, RowExclusiveLock);
	AcceptInvalidationMessages();
	tuple = SearchSysCacheLockedCopy1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	slim_read_reloptions(relid, &old_entries, &others);
	if (entry != NULL)
		entries = slim_apply_entry(old_entries, entry, is_reset);
	entries = slim_known_index_columns(relid, entries,
									   before != NIL ? before : old_entries);
	changed = !slim_string_lists_equal(old_entries, entries);
	/* an entry of ours waits for no one: another transaction's open update */
	if (changed && entry != NULL && slim_row_being_updated(tuple))
	{
		ereport(WARNING,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("could not store \"%s\" in the options of \"%s\"",
						entry, get_rel_name(relid)),
				 errdetail("Another transaction is changing the table's pg_class row (GRANT, ALTER TABLE)."),
				 errhint("Run ALTER TABLE ... SET (%s) when it is done: a dump that lacks it restores larger.",
						 entry)));
		changed = false;
	}
	if (changed)
	{
		newoptions = slim_build_reloptions(entries, others);
		memset(values, 0, sizeof(values));
		memset(nulls, false, sizeof(nulls));
		memset(replace, false, sizeof(replace));
		replace[Anum_pg_class_reloptions - 1] = true;
		if (newoptions != (Datum) 0)
			values[Anum_pg_class_reloptions - 1] = newoptions;
		else
			nulls[Anum_pg_class_reloptions - 1] = true;
		newtuple = heap_modify_tuple(tuple, RelationGetDescr(pgclass),
									 values, nulls, replace);
		CatalogTupleUpdate(pgclass, &newtuple->t_self, newtuple);
		heap_freetuple(newtuple);
	}
	UnlockTuple(pgclass, &tuple->t_self, InplaceUpdateTupleLock);
	heap_freetuple(tuple);
	table_close(pgclass, RowExclusiveLock);

	/* visible at once; this backend's relcache entry is rebuilt too */
	if (changed)
		CommandCounterIncrement();
	return changed;
}

/*
 * Make entries the slimheap part of relation relid's pg_class.reloptions,
 * keeping core's part as it is.  The caller holds a lock that keeps others
 * from changing the options: ShareUpdateExclusiveLock or stronger on the
 * relation, as core's own SET (...) does, or the relation is new in this
 * transaction.  Returns whether the row changed; other backends rebuild
 * their relcache entries when the change commits.
 */
bool
slim_store_entries(Oid relid, const List *entries)
{
	return slim_store_locked(relid, entries, NULL, false, NIL);
}

/*
 * slim_store_entries() for a statement that emptied the stored entries
 * first (ALTER TABLE ... SET, for core's check): before, what it found,
 * decides which names of slimheap.index_columns are old (those that are
 * no column any more go without a word).
 */
bool
slim_store_entries_after(Oid relid, const List *entries, const List *before)
{
	return slim_store_locked(relid, entries, NULL, false, before);
}

/*
 * Apply one entry (SET, or RESET) to what relid stores now, read under the
 * row's lock: for slimheap.index_columns after an index build, whose
 * table lock does not keep another session's SET (...) away.
 */
bool
slim_store_entry(Oid relid, const char *entry, bool is_reset)
{
	return slim_store_locked(relid, NIL, entry, is_reset, NIL);
}

/* the slimheap entries stored for relation relid */
List *
slim_stored_entries(Oid relid)
{
	List	   *entries;

	slim_read_reloptions(relid, &entries, NULL);
	return entries;
}

/*
 * The attributes of relation relid, dropped ones included, as its pg_class
 * row says now (0 for none): whether it is narrow (SLIM_NARROW_NATTS).
 */
int
slim_relation_natts(Oid relid)
{
	HeapTuple	tuple;
	int			natts;

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		return 0;
	natts = ((Form_pg_class) GETSTRUCT(tuple))->relnatts;
	ReleaseSysCache(tuple);
	return natts;
}
