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
 * NULL), and with it every column before it, in its standard prefix: no
 * row gets a compressed tail before that column.  The statement warns
 * once, with the way back (a rewrite stores the default in every row and
 * clears it from the catalog).  docs/format.md, "Fast defaults".
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
#include "slimheap.h"

/* whether an ALTER TABLE adds a column */
static bool
slim_alter_adds_column(const AlterTableStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->cmds)
	{
		if (lfirst_node(AlterTableCmd, lc)->subtype == AT_AddColumn)
			return true;
	}
	return false;
}

/*
 * Before core runs an ALTER TABLE that adds a column: the table, looked up
 * and locked as core does next, and its fast-default floor now (-1: not a
 * compress table, nothing to say).
 */
Oid
slim_alter_warn_before(Node *parsetree, int *missing_floor)
{
	AlterTableStmt *stmt = (AlterTableStmt *) parsetree;
	Oid			relid;
	Relation	rel;

	*missing_floor = -1;
	if (!IsA(parsetree, AlterTableStmt) || !slim_alter_adds_column(stmt))
		return InvalidOid;
	relid = AlterTableLookupRelation(stmt, AlterTableGetLockLevel(stmt->cmds));
	if (!OidIsValid(relid))
		return InvalidOid;
	rel = relation_open(relid, NoLock);
	if (rel->rd_rel->relkind == RELKIND_RELATION &&
		slim_is_slimheap_relation(rel) &&
		slim_get_relinfo(rel)->options.null_bitmap == SLIM_NULL_BITMAP_COMPRESS)
		*missing_floor = slim_get_relinfo(rel)->missing_floor;
	relation_close(rel, NoLock);
	return *missing_floor >= 0 ? relid : InvalidOid;
}

/* after it: warn if the floor rose (a fast default past the old one) */
void
slim_alter_warn_after(Oid relid, int missing_floor)
{
	Relation	rel = try_relation_open(relid, NoLock);
	int			now;

	if (rel == NULL)
		return;
	now = slim_get_relinfo(rel)->missing_floor;
	if (now > missing_floor &&
		slim_get_relinfo(rel)->options.null_bitmap == SLIM_NULL_BITMAP_COMPRESS)
		ereport(WARNING,
				(errmsg("rows written to table \"%s\" from now on keep every column up to \"%s\" in their standard prefix",
						RelationGetRelationName(rel),
						NameStr(TupleDescAttr(RelationGetDescr(rel), now - 1)->attname)),
				 errdetail("Rows stored before the column was added read its default from the catalog, so every later row stores it, and no row keeps a compressed tail before it."),
				 errhint("VACUUM FULL (or pg_repack) stores the default in every row and clears it from the catalog: rows written after that keep their tails.")));
	relation_close(rel, NoLock);
}
