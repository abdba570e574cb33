/*-------------------------------------------------------------------------
 *
 * slim_index_fresh.c
 *	  CREATE INDEX on a compress table whose file is new in this
 *	  transaction: its rows are formed again for the new index first.
 *
 * An index on a column that rows keep in their compressed tail makes the
 * build re-lay those rows with the column in their prefix, and store again,
 * as new versions, those that no longer fit on their page (slim_relayout.c,
 * slim_index_move.c): at fillfactor 100 most of them, and the file grows
 * by their share (docs/row-floor.md §7).  A table created or truncated in
 * this transaction (BEGIN; CREATE TABLE; COPY; CREATE INDEX, or
 * pg_restore --single-transaction) is seen by no other transaction, and
 * this one holds it ACCESS EXCLUSIVE: it can be rewritten instead, as
 * VACUUM FULL rewrites it, with the new index's columns counted in every
 * row's prefix floor, before the build, which then finds nothing to move.
 * The rewrite copies only what this transaction wrote.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_index_fresh.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "commands/tablecmds.h"
#include "nodes/parsenodes.h"
#include "optimizer/optimizer.h"
#include "parser/parse_utilcmd.h"
#include "storage/lmgr.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "slim_compat.h"
#include "slim_index.h"
#include "slim_relayout.h"
#include "slim_tail.h"
#include "slimheap.h"

/* attribute attnum into attrs, offset as pull_varattnos() offsets them */
static Bitmapset *
slim_add_attnum(Bitmapset *attrs, AttrNumber attnum)
{
	if (attnum == InvalidAttrNumber)
		return attrs;
	return bms_add_member(attrs, attnum - FirstLowInvalidHeapAttributeNumber);
}

/* the attributes an IndexElem list reads */
static Bitmapset *
slim_index_elems_attrs(Oid relid, List *elems, Bitmapset *attrs)
{
	ListCell   *lc;

	foreach(lc, elems)
	{
		IndexElem  *elem = lfirst_node(IndexElem, lc);

		if (elem->name != NULL)
			attrs = slim_add_attnum(attrs, get_attnum(relid, elem->name));
		else if (elem->expr != NULL)
			pull_varattnos(elem->expr, 1, &attrs);
	}
	return attrs;
}

/*
 * The attributes the index stmt creates on relid reads (keys, INCLUDE
 * columns, expressions, predicate), from a parse-analysed copy of it.
 */
Bitmapset *
slim_index_stmt_attrs(Oid relid, IndexStmt *stmt, const char *queryString)
{
	IndexStmt  *copy = copyObject(stmt);
	Bitmapset  *attrs = NULL;

	copy = transformIndexStmt(relid, copy, queryString);
	attrs = slim_index_elems_attrs(relid, copy->indexParams, attrs);
	attrs = slim_index_elems_attrs(relid, copy->indexIncludingParams, attrs);
	if (copy->whereClause != NULL)
		pull_varattnos(copy->whereClause, 1, &attrs);
	return attrs;
}

/* the last attribute of attrs (whole row: natts) */
int
slim_attrs_last(const Bitmapset *attrs, int natts, bool *whole_row)
{
	int			x = -1;
	int			last = 0;

	*whole_row = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs);
	while ((x = bms_next_member(attrs, x)) >= 0)
		last = Max(last, x + FirstLowInvalidHeapAttributeNumber);
	return *whole_row ? natts : last;
}

/*
 * Rewrite rel (its file new in this transaction, locked ACCESS EXCLUSIVE)
 * with attrs counted in its prefix floor, if a row hides one of them.
 */
static bool
slim_index_fresh_wanted(Relation rel, const Bitmapset *attrs)
{
	bool		whole_row;
	int			last = slim_attrs_last(attrs, RelationGetDescr(rel)->natts,
									   &whole_row);

	if (!whole_row && last <= SLIM_FREE_PREFIX_NATTS)
		return false;
	return slim_relayout_any_wanted(rel, attrs, whole_row, last);
}

/*
 * The rewrite, with attrs counted as an index being built (the rewrite's
 * new table takes its floor from the table it copies: slim_relinfo.c)
 */
static void
slim_index_fresh_rewrite(Relation rel, const Bitmapset *attrs)
{
	Oid			relid = RelationGetRelid(rel);

	slim_relinfo_set_building(rel, attrs);
	table_close(rel, NoLock);	/* VACUUM FULL opens it alone */
	PG_TRY();
	{
		slim_rewrite_table(relid);
	}
	PG_FINALLY();
	{
		slim_relinfo_forget_building();
	}
	PG_END_TRY();
}

/*
 * Before core runs a plain CREATE INDEX: if its table is a compress table
 * whose file is new in this transaction, rewrite it for the index.  The
 * table is looked up and locked as core does next, with core's ownership
 * check.
 */
void
slim_index_before_create(Node *parsetree, const char *queryString)
{
	IndexStmt  *stmt = (IndexStmt *) parsetree;
	Oid			relid;
	Relation	rel;
	Bitmapset  *attrs = NULL;

	if (!IsA(parsetree, IndexStmt) || stmt->concurrent || stmt->transformed)
		return;
	relid = RangeVarGetRelidExtended(stmt->relation, ShareLock,
									 RVR_MISSING_OK,
									 RangeVarCallbackOwnsRelation, NULL);
	if (!OidIsValid(relid))
		return;
	rel = table_open(relid, NoLock);
	if (rel->rd_rel->relkind == RELKIND_RELATION &&
		slim_is_slimheap_relation(rel) &&
		slim_get_relinfo(rel)->options.null_bitmap == SLIM_NULL_BITMAP_COMPRESS &&
		slim_storage_is_new(rel) &&
		CheckRelationLockedByMe(rel, AccessExclusiveLock, false))
		attrs = slim_index_stmt_attrs(relid, stmt, queryString);
	if (attrs != NULL && slim_index_fresh_wanted(rel, attrs))
		slim_index_fresh_rewrite(rel, attrs);	/* closes rel */
	else
		table_close(rel, NoLock);
	bms_free(attrs);
}
