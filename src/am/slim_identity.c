/*-------------------------------------------------------------------------
 *
 * slim_identity.c
 *	  ALTER TABLE ... REPLICA IDENTITY FULL on a slimheap table: its rows
 *	  with a compressed tail are re-laid without one before anyone can
 *	  update or delete them.
 *
 * Under REPLICA IDENTITY FULL heap logs an UPDATE's or DELETE's old row
 * whole, and logical decoding reads it with heap's deformer: a tail row
 * would be decoded as its prefix only (invariant C3).  No write can fix
 * its old row at the moment it happens (the executor pins the row's page,
 * so no cleanup lock can be had; a delete and insert logs the same old
 * row).  The ALTER can: it holds ACCESS EXCLUSIVE lock until its
 * transaction ends, so when core has changed the catalog, the rows are
 * re-laid in place under that lock (slim_relayout.c: same line pointers
 * and visibility, slimheap's WAL record, nothing decoded), whatever
 * wal_level is now, since it can become logical at a restart.  Where rows
 * do not fit on their page, or the re-layout cannot be logged, the table
 * is rewritten as VACUUM FULL does (not decoded either).  New rows of
 * such a table never get a tail (slim_compress_prefix_floor()).
 *
 * The error of slim_am_write.c stays as the backstop: a session that
 * loaded the library only during the ALTER is stopped by the options
 * guard's event trigger (slim_options_guard.c).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_identity.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "commands/tablecmds.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/lmgr.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "slim_compat.h"
#include "slim_index.h"
#include "slim_options.h"
#include "slim_relayout.h"
#include "slimheap.h"

/* the statement's WARNING: compress keeps only truncate's savings */
static void
slim_identity_warn(Relation rel)
{
	if (slim_get_relinfo(rel)->options.null_bitmap != SLIM_NULL_BITMAP_COMPRESS)
		return;
	ereport(WARNING,
			(errmsg("table \"%s\" stores no compressed tails under REPLICA IDENTITY FULL",
					RelationGetRelationName(rel)),
			 errdetail("Its rows keep only the savings of slimheap.null_bitmap = truncate."),
			 errhint("A primary key or REPLICA IDENTITY USING INDEX lets its rows keep their tails.")));
}

/*
 * Re-lay rel's tail rows without a tail, in place.  Returns whether every
 * one was; else the caller rewrites the table.
 */
static bool
slim_identity_relayout(Relation rel)
{
	int			natts = RelationGetDescr(rel)->natts;
	uint64		relaid = 0;
	bool		complete;

	if (!slim_relayout_possible(rel))
	{
		if (!slim_relayout_any_wanted(rel, NULL, true, natts))
			return true;
		ereport(NOTICE,
				(errmsg("rewriting table \"%s\" so that no row keeps a compressed tail",
						RelationGetRelationName(rel)),
				 errdetail("Rows are re-laid in place only when slimheap is in shared_preload_libraries.")));
		return false;
	}
	complete = slim_relayout_table(rel, NULL, true, natts, &relaid);
	if (relaid > 0)
		ereport(NOTICE,
				(errmsg("re-laid %llu rows of table \"%s\" without their compressed tails",
						(unsigned long long) relaid,
						RelationGetRelationName(rel)),
				 errdetail("REPLICA IDENTITY FULL logs an updated or deleted row whole, as heap's row.")));
	if (!complete)
		ereport(NOTICE,
				(errmsg("rewriting table \"%s\" so that no row keeps a compressed tail",
						RelationGetRelationName(rel)),
				 errdetail("Some rows did not fit on their page without their tails.")));
	return complete;
}

/*
 * Before core runs an ALTER TABLE that sets REPLICA IDENTITY FULL: the
 * table it names, looked up and locked as core looks it up next (ACCESS
 * EXCLUSIVE, with core's checks), so that what happens after the
 * statement concerns that table whatever its name means by then; and
 * whether it had that identity already.  InvalidOid for other statements.
 */
Oid
slim_identity_before_alter(Node *parsetree, bool *was_full)
{
	AlterTableStmt *stmt = (AlterTableStmt *) parsetree;
	Oid			relid;
	HeapTuple	tuple;

	*was_full = false;
	if (!IsA(parsetree, AlterTableStmt) ||
		!slim_alter_sets_identity_full(stmt))
		return InvalidOid;
	relid = AlterTableLookupRelation(stmt, AccessExclusiveLock);
	if (!OidIsValid(relid))
		return InvalidOid;
	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (HeapTupleIsValid(tuple))
	{
		*was_full = ((Form_pg_class) GETSTRUCT(tuple))->relreplident ==
			REPLICA_IDENTITY_FULL;
		ReleaseSysCache(tuple);
	}
	return relid;
}

/*
 * After core ran that ALTER TABLE: re-lay the rows of relid if it is a
 * slimheap table that now has REPLICA IDENTITY FULL.  The lock is held to
 * the end of the transaction, and reading the whole table under it is
 * what the README says this ALTER costs.
 */
void
slim_identity_after_alter(Oid relid, bool was_full)
{
	Relation	rel;
	bool		complete = true;

	/* the new replica identity, for the floors rows are formed with */
	CommandCounterIncrement();
	rel = try_table_open(relid, AccessExclusiveLock);
	if (rel == NULL)
		return;
	if (slim_is_slimheap_relation(rel) &&
		RELKIND_HAS_STORAGE(rel->rd_rel->relkind) &&
		rel->rd_rel->relreplident == REPLICA_IDENTITY_FULL)
	{
		if (!was_full)
			slim_identity_warn(rel);
		complete = slim_identity_relayout(rel);
	}
	table_close(rel, NoLock);
	if (!complete)
		slim_rewrite_table(relid);
}
