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
#include "catalog/namespace.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/lmgr.h"
#include "utils/rel.h"

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
	uint64		relaid = 0;
	bool		complete;

	if (!slim_relayout_possible(rel))
	{
		ereport(NOTICE,
				(errmsg("rewriting table \"%s\" so that no row keeps a compressed tail",
						RelationGetRelationName(rel)),
				 errdetail("Rows are re-laid in place only when slimheap is in shared_preload_libraries.")));
		return false;
	}
	complete = slim_relayout_table(rel, NULL, true,
								   RelationGetDescr(rel)->natts, &relaid);
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
 * After core ran an ALTER TABLE that set REPLICA IDENTITY FULL: re-lay
 * the rows of the table if it is slimheap's.  Core took ACCESS EXCLUSIVE
 * lock of it, held to the end of the transaction, and reads of the whole
 * table under it are what the README says this ALTER costs.
 */
void
slim_identity_after_alter(Node *parsetree)
{
	Oid			relid;
	Relation	rel;
	bool		complete = true;

	if (!IsA(parsetree, AlterTableStmt) ||
		!slim_alter_sets_identity_full((AlterTableStmt *) parsetree))
		return;
	relid = RangeVarGetRelid(((AlterTableStmt *) parsetree)->relation,
							 NoLock, true);
	if (!OidIsValid(relid))
		return;

	/* the new replica identity, for the floors rows are formed with */
	CommandCounterIncrement();
	rel = table_open(relid, AccessExclusiveLock);	/* core holds it */
	if (slim_is_slimheap_relation(rel) &&
		RELKIND_HAS_STORAGE(rel->rd_rel->relkind) &&
		rel->rd_rel->relreplident == REPLICA_IDENTITY_FULL)
	{
		slim_identity_warn(rel);
		complete = slim_identity_relayout(rel);
	}
	table_close(rel, NoLock);
	if (!complete)
		slim_rewrite_table(relid);
}
