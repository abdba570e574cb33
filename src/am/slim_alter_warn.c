/*-------------------------------------------------------------------------
 *
 * slim_alter_warn.c
 *	  The ALTER TABLE that takes compress's savings away says so: a column
 *	  added with a default.
 *
 * A column added with ADD COLUMN ... DEFAULT gets a fast default: rows
 * stored before it read the default from the catalog for the column they
 * do not store.  So every row written afterwards must store the column
 * (invariant T1: a row that left it out would read the default, not its
 * NULL).  From extension version 1.4 on a compressed tail stores it (a
 * NULL of it at the tail's end), unless an index reads the column: heap's
 * readers of indexed columns see only the prefix, so then every column up
 * to it stays in every row's standard prefix and no row gets a tail before
 * it.  Where the prefix floor rises so, the statement warns once, with the
 * way back (a rewrite stores the default in every row and clears it from
 * the catalog).  docs/fast-defaults.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_alter_warn.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "commands/tablecmds.h"
#include "nodes/parsenodes.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "slim_compat.h"
#include "slim_tail.h"
#include "slimheap.h"

/* the attributes every compress row of rel keeps in its prefix */
static int
slim_alter_prefix_base(Relation rel)
{
	return slim_get_relinfo(rel)->rewrite_prefix_floor->base;
}

/*
 * Before core runs an ALTER TABLE that adds a column: the table, looked up
 * and locked as core does next, and the base of its prefix floor now (-1:
 * not a compress table, nothing to say).
 */
Oid
slim_alter_warn_before(Node *parsetree, int *prefix_base)
{
	AlterTableStmt *stmt = (AlterTableStmt *) parsetree;
	Oid			relid;
	Relation	rel;

	*prefix_base = -1;
	if (!IsA(parsetree, AlterTableStmt) || !slim_alter_adds_column(stmt))
		return InvalidOid;
	relid = AlterTableLookupRelation(stmt, AlterTableGetLockLevel(stmt->cmds));
	if (!OidIsValid(relid))
		return InvalidOid;
	rel = relation_open(relid, NoLock);
	if (rel->rd_rel->relkind == RELKIND_RELATION &&
		slim_is_slimheap_relation(rel) &&
		slim_get_relinfo(rel)->options.null_bitmap == SLIM_NULL_BITMAP_COMPRESS)
		*prefix_base = slim_alter_prefix_base(rel);
	relation_close(rel, NoLock);
	return *prefix_base >= 0 ? relid : InvalidOid;
}

/* after it: warn if the base rose (a fast default that must be in it) */
void
slim_alter_warn_after(Oid relid, int prefix_base)
{
	Relation	rel = try_relation_open(relid, NoLock);
	int			now;

	if (rel == NULL)
		return;
	if (slim_get_relinfo(rel)->options.null_bitmap != SLIM_NULL_BITMAP_COMPRESS)
	{
		relation_close(rel, NoLock);
		return;
	}
	/* risen because of a fast default (not of the free prefix or options) */
	now = slim_alter_prefix_base(rel);
	if (now > prefix_base && now > SLIM_FREE_PREFIX_NATTS &&
		now > slim_get_relinfo(rel)->options.prefix_columns &&
		slim_missing_floor_upto(RelationGetDescr(rel), now) == now)
	{
		bool		ends_null = slim_tail_may_end_with_nulls();

		ereport(WARNING,
				(errmsg("rows written to table \"%s\" from now on keep every column up to \"%s\" in their standard prefix",
						RelationGetRelationName(rel),
						NameStr(TupleDescAttr(RelationGetDescr(rel), now - 1)->attname)),
				 errdetail("Rows stored before the column was added read its default from the catalog, so every later row stores it, and no row keeps a compressed tail before it while an index reads it%s.",
						   ends_null ? "" :
						   " (or while the extension is older than 1.4: ALTER EXTENSION slimheap UPDATE)"),
				 errhint("VACUUM FULL (or pg_repack) stores the default in every row and clears it from the catalog: rows written after that keep their tails.")));
	}
	relation_close(rel, NoLock);
}
