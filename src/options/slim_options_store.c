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
#include "catalog/indexing.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "utils/rel.h"
#include "storage/lmgr.h"
#include "utils/inval.h"
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

/*
 * Make entries the slimheap part of relation relid's pg_class.reloptions,
 * keeping core's part as it is.  The caller holds a lock that keeps others
 * from changing the row: ShareUpdateExclusiveLock or stronger on the
 * relation, as core's own SET (...) does, or the relation is new in this
 * transaction (or, for slimheap.index_columns after an index build, what
 * the build holds: src/am/slim_index_columns.c).  Returns whether the row changed.  A change is made visible
 * at once (CommandCounterIncrement), which also rebuilds this backend's
 * relcache entry; other backends rebuild theirs when the change commits.
 */
bool
slim_store_entries(Oid relid, const List *entries)
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

	entries = slim_known_index_columns(relid, entries);
	slim_read_reloptions(relid, &old_entries, &others);
	if (slim_string_lists_equal(old_entries, entries))
		return false;

	/*
	 * pg_class rows are updated in place too (VACUUM, ANALYZE, index
	 * builds): the tuple lock README.tuplock asks for keeps those from
	 * being lost, and the row is read again under it, with what others
	 * committed meanwhile.
	 */
	pgclass = table_open(RelationRelationId, RowExclusiveLock);
	AcceptInvalidationMessages();
	tuple = SearchSysCacheLockedCopy1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	slim_read_reloptions(relid, &old_entries, &others);

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
	UnlockTuple(pgclass, &tuple->t_self, InplaceUpdateTupleLock);

	heap_freetuple(newtuple);
	heap_freetuple(tuple);
	table_close(pgclass, RowExclusiveLock);

	CommandCounterIncrement();
	return true;
}

/* the slimheap entries stored for relation relid */
List *
slim_stored_entries(Oid relid)
{
	List	   *entries;

	slim_read_reloptions(relid, &entries, NULL);
	return entries;
}
