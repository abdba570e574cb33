/*-------------------------------------------------------------------------
 *
 * slim_index_columns.c
 *	  The columns a compress table's indexes read, kept in its option
 *	  slimheap.index_columns so that a dump carries them
 *	  (src/options/slim_options_columns.c says why), and read back into
 *	  the table's prefix floor.
 *
 * Every build of a new index on a compress table notes the columns it
 * reads; when the statement ends, those past the first
 * SLIM_FREE_PREFIX_NATTS (always in the prefix) join the option.  RENAME
 * COLUMN renames them there, and an ALTER TABLE that drops a column drops
 * it there.  slim_relinfo.c reads them into the floor.  DROP INDEX leaves them: the option only widens the floor
 * (RESET it to narrow it; the table's indexes count anyway).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_index_columns.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "nodes/parsenodes.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"

#include "slim_index.h"
#include "slim_options.h"
#include "slim_tail.h"
#include "slimheap.h"

/* a build's columns, noted until its statement ends (TopMemoryContext) */
typedef struct SlimNotedColumns
{
	Oid			relid;
	Bitmapset  *attrs;			/* offset as pull_varattnos() offsets them */
	SubTransactionId subid;		/* its abort takes the note away */
} SlimNotedColumns;

static List *slim_noted_columns = NIL;

/* the column names relid's slimheap.index_columns lists (NIL: none) */
static List *
slim_read_index_columns(Oid relid)
{
	List	   *entries;

	slim_read_reloptions(relid, &entries, NULL);
	return slim_index_columns_of(entries);
}

/* a build of a new index on rel (a compress table) reads attrs */
void
slim_index_columns_note(Relation rel, const Bitmapset *attrs)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(TopMemoryContext);
	SlimNotedColumns *noted = palloc(sizeof(SlimNotedColumns));

	noted->relid = RelationGetRelid(rel);
	noted->attrs = bms_copy(attrs);
	noted->subid = GetCurrentSubTransactionId();
	slim_noted_columns = lappend(slim_noted_columns, noted);
	MemoryContextSwitchTo(oldcxt);
}

/* forget what was noted (an abort, or once recorded) */
void
slim_index_columns_forget(void)
{
	ListCell   *lc;

	foreach(lc, slim_noted_columns)
	{
		SlimNotedColumns *noted = lfirst(lc);

		bms_free(noted->attrs);
		pfree(noted);
	}
	list_free(slim_noted_columns);
	slim_noted_columns = NIL;
}

/* a subtransaction ends: its failed builds' notes go, the others pass up */
void
slim_index_columns_subxact(bool aborted, SubTransactionId subid,
						   SubTransactionId parent)
{
	ListCell   *lc;

	foreach(lc, slim_noted_columns)
	{
		SlimNotedColumns *noted = lfirst(lc);

		if (noted->subid != subid)
			continue;
		if (aborted)
		{
			slim_noted_columns = foreach_delete_current(slim_noted_columns, lc);
			bms_free(noted->attrs);
			pfree(noted);
		}
		else
			noted->subid = parent;
	}
}

/*
 * names into relid's option.  The option only helps a later restore: a
 * failure to store it (another transaction's update of the pg_class row
 * met after all) must not fail the statement, whose index is built, so it
 * is a WARNING, in a subtransaction that takes the attempt back.
 */
static void
slim_index_columns_store(Oid relid, List *names)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	char	   *entry = slim_index_columns_entry(names);

	BeginInternalSubTransaction(NULL);
	PG_TRY();
	{
		(void) slim_store_entry(relid, entry, names == NIL);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		ereport(WARNING,
				(errcode(edata->sqlerrcode),
				 errmsg("could not store \"%s\" in the options of \"%s\": %s",
						entry, get_rel_name(relid), edata->message),
				 errhint("Run ALTER TABLE ... SET (%s) later: a dump that lacks it restores larger.",
						 entry)));
		FreeErrorData(edata);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
}

/*
 * The option's room: pg_class rows have no TOAST table, so the list stops
 * growing here (the table's indexes still count in its floor; only the
 * rows a restore loads may then miss a column, and its build moves them).
 */
#define SLIM_INDEX_COLUMNS_MAX_BYTES	1024

/* the names of attrs of relid past the free prefix, added to names */
static List *
slim_index_columns_add(Oid relid, List *names, const Bitmapset *attrs)
{
	int			x = -1;
	size_t		bytes = 0;
	ListCell   *lc;

	foreach(lc, names)
		bytes += strlen(quote_identifier(strVal(lfirst(lc)))) + 1;
	while ((x = bms_next_member(attrs, x)) >= 0)
	{
		AttrNumber	attnum = x + FirstLowInvalidHeapAttributeNumber;
		char	   *name;

		if (attnum <= SLIM_FREE_PREFIX_NATTS)
			continue;			/* a whole-row reference too (0) */
		name = get_attname(relid, attnum, true);
		if (name == NULL || list_member(names, makeString(name)))
			continue;
		bytes += strlen(quote_identifier(name)) + 1;
		if (bytes > SLIM_INDEX_COLUMNS_MAX_BYTES)
			break;
		names = lappend(names, makeString(name));
	}
	return names;
}

static List *
slim_strings_as_names(List *strings)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, strings)
		result = lappend(result, strVal(lfirst(lc)));
	return result;
}

/*
 * The columns of attrs past the free prefix join the option of relid, if
 * it is still a compress table.  Builds of one table's indexes that run
 * side by side take turns here (slim_index_lock_moves()), each reading the
 * option the one before stored; the table lock is the caller's (a build's
 * SHARE, a concurrent build's SHARE UPDATE EXCLUSIVE), or else ACCESS
 * SHARE, which keeps the table but not another change of its pg_class row
 * away.
 */
void
slim_index_columns_merge(Oid relid, const Bitmapset *attrs)
{
	Relation	rel = try_table_open(relid, AccessShareLock);
	List	   *names;
	List	   *added;

	if (rel == NULL)
		return;
	if (slim_is_slimheap_relation(rel) &&
		slim_get_relinfo(rel)->options.null_bitmap == SLIM_NULL_BITMAP_COMPRESS)
	{
		slim_index_lock_moves(rel);
		names = slim_column_name_nodes(slim_read_index_columns(relid));
		added = slim_index_columns_add(relid, list_copy(names), attrs);
		if (list_length(added) > list_length(names))
			slim_index_columns_store(relid, slim_strings_as_names(added));
	}
	table_close(rel, AccessShareLock);
}

/* when a statement ends: the columns its builds noted join the options */
void
slim_index_columns_record(void)
{
	List	   *noted = slim_noted_columns;
	ListCell   *lc;

	if (noted == NIL || !IsTransactionState())
		return;
	slim_noted_columns = NIL;
	PG_TRY();
	{
		foreach(lc, noted)
		{
			SlimNotedColumns *n = lfirst(lc);

			slim_index_columns_merge(n->relid, n->attrs);
		}
	}
	PG_FINALLY();
	{
		slim_noted_columns = noted;
		slim_index_columns_forget();
	}
	PG_END_TRY();
}

/* whether an ALTER TABLE drops a column (the option then drops its name) */
static bool
slim_alter_drops_column(AlterTableStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->cmds)
	{
		if (lfirst_node(AlterTableCmd, lc)->subtype == AT_DropColumn)
			return true;
	}
	return false;
}

/*
 * One table after core renamed or dropped columns: the option keeps the
 * names of columns left, old (the RENAME's) renamed new.
 */
static void
slim_index_columns_follow(Oid relid, const char *old, const char *new)
{
	List	   *names = slim_read_index_columns(relid);
	List	   *kept = NIL;
	ListCell   *lc;

	foreach(lc, names)
	{
		char	   *name = lfirst(lc);

		if (old != NULL && strcmp(name, old) == 0)
			name = (char *) new;
		if (get_attnum(relid, name) > 0)
			kept = lappend(kept, name);
	}
	if (!equal(slim_column_name_nodes(kept), slim_column_name_nodes(names)))
		slim_index_columns_store(relid, kept);
}

/*
 * After core ran a statement: RENAME COLUMN renames the column in the
 * option, and an ALTER TABLE (that may have dropped columns) keeps only
 * the names of columns that are left, on the table and on the partitions
 * and children the statement reached.  Core holds their locks.
 */
void
slim_index_columns_after_alter(Node *parsetree)
{
	RangeVar   *relation;
	RenameStmt *rename = NULL;
	Oid			relid;
	char		relkind;
	ListCell   *lc;

	if (IsA(parsetree, RenameStmt) &&
		((RenameStmt *) parsetree)->renameType == OBJECT_COLUMN &&
		((RenameStmt *) parsetree)->relation != NULL)
	{
		rename = (RenameStmt *) parsetree;
		relation = rename->relation;
	}
	else if (IsA(parsetree, AlterTableStmt) &&
			 slim_alter_drops_column((AlterTableStmt *) parsetree))
		relation = ((AlterTableStmt *) parsetree)->relation;
	else
		return;
	if (!IsTransactionState())
		return;
	CommandCounterIncrement();	/* core's change of the columns */
	relid = RangeVarGetRelid(relation, NoLock, true);
	if (!OidIsValid(relid))
		return;
	relkind = get_rel_relkind(relid);
	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE &&
		relkind != RELKIND_MATVIEW)
		return;
	/* the children core recursed to, and locked (not with ONLY) */
	foreach(lc, relation->inh ? find_all_inheritors(relid, NoLock, NULL) :
			list_make1_oid(relid))
	{
		if (get_rel_relkind(lfirst_oid(lc)) != RELKIND_PARTITIONED_TABLE)
			slim_index_columns_follow(lfirst_oid(lc),
									  rename ? rename->subname : NULL,
									  rename ? rename->newname : NULL);
	}
}
