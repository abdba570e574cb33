/*-------------------------------------------------------------------------
 *
 * slim_options_guard.c
 *	  Which DDL statements need slimheap's ProcessUtility hook, whether it
 *	  is running one, and the event trigger that stops them in sessions that
 *	  loaded the library too late.
 *
 * The hook (slim_options_ddl.c) exists only in sessions that had the library
 * loaded when the statement started.  Without shared_preload_libraries a
 * session loads it when it first needs it, possibly while running the very
 * statement that carries slimheap options; core would then reject the
 * options with an obscure message or, for SET ACCESS METHOD heap, keep
 * entries on a table that core cannot validate.  The extension's
 * ddl_command_start event trigger catches that case (docs/options.md).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/options/slim_options_guard.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "commands/event_trigger.h"
#include "commands/tablecmds.h"
#include "fmgr.h"
#include "nodes/parsenodes.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "slim_options.h"

PG_FUNCTION_INFO_V1(slimheap_options_guard);

/*
 * Whether an ALTER TABLE changes options or the access method (SET (...),
 * RESET (...), SET ACCESS METHOD): what the hook must see when the relation
 * has slimheap entries stored.
 */
bool
slim_alter_touches_options(const AlterTableStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (cmd->subtype == AT_SetRelOptions ||
			cmd->subtype == AT_ResetRelOptions ||
			cmd->subtype == AT_SetAccessMethod)
			return true;
	}
	return false;
}

/*
 * Whether an ALTER TABLE sets REPLICA IDENTITY FULL: the access method
 * re-lays a slimheap table's tail rows after it (slim_identity.c).
 */
bool
slim_alter_sets_identity_full(const AlterTableStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (cmd->subtype == AT_ReplicaIdentity &&
			castNode(ReplicaIdentityStmt, cmd->def)->identity_type ==
			REPLICA_IDENTITY_FULL)
			return true;
	}
	return false;
}

/*
 * Whether the relation an ALTER TABLE names is a slimheap table with
 * storage (a partitioned parent has no rows), looked up and locked as core
 * does next.
 */
static bool
slim_alter_names_slimheap(AlterTableStmt *stmt)
{
	Oid			relid;
	Oid			amoid;
	char		relkind;
	HeapTuple	tuple;

	relid = AlterTableLookupRelation(stmt, AlterTableGetLockLevel(stmt->cmds));
	if (!OidIsValid(relid))
		return false;
	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		return false;
	amoid = ((Form_pg_class) GETSTRUCT(tuple))->relam;
	relkind = ((Form_pg_class) GETSTRUCT(tuple))->relkind;
	ReleaseSysCache(tuple);
	return RELKIND_HAS_STORAGE(relkind) && slim_options_am_is_slimheap(amoid);
}

/*
 * Whether an ALTER TABLE sets the access method to slimheap (by name, or
 * SET ACCESS METHOD DEFAULT under default_table_access_method = slimheap):
 * the table gets the setting's mode from the hook.
 */
static bool
slim_alter_sets_slimheap(const AlterTableStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);
		const char *am;

		if (cmd->subtype != AT_SetAccessMethod)
			continue;
		am = cmd->name != NULL ? cmd->name : default_table_access_method;
		if (am != NULL && strcmp(am, "slimheap") == 0)
			return true;
	}
	return false;
}

/* whether an ALTER TABLE adds a column (also slim_alter_warn.c's question) */
bool
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
 * Whether the relation an ALTER TABLE names is a table or materialized view
 * with storage, what may become slimheap, looked up and locked as core does
 * next (core reports a missing one, a view, a sequence, an index or a
 * permission error itself).
 */
static bool
slim_alter_names_table(AlterTableStmt *stmt)
{
	Oid			relid;
	char		relkind;

	relid = AlterTableLookupRelation(stmt, AlterTableGetLockLevel(stmt->cmds));
	if (!OidIsValid(relid))
		return false;
	relkind = get_rel_relkind(relid);
	return relkind == RELKIND_RELATION || relkind == RELKIND_MATVIEW;
}

/*
 * Whether the relation an ALTER TABLE names has slimheap entries stored.
 * The name is looked up as core does, with core's checks and the lock core
 * takes next (held to the end of the transaction): without the lock, the
 * entries could change before core reads them.
 */
static bool
slim_relation_has_entries(AlterTableStmt *stmt)
{
	Oid			relid;
	List	   *entries;

	relid = AlterTableLookupRelation(stmt, AlterTableGetLockLevel(stmt->cmds));
	if (!OidIsValid(relid))
		return false;
	slim_read_reloptions(relid, &entries, NULL);
	return entries != NIL;
}

/* whether relation names a copy pg_repack makes (its access method is ours to set) */
static bool
slim_is_repack_copy(const RangeVar *relation)
{
	Oid			amoid;

	return OidIsValid(slim_repack_original(relation, &amoid));
}

/*
 * Whether a statement needs the hook, i.e. names slimheap options, creates
 * the copy pg_repack swaps into a table (slim_options_repack.c), or
 * changes the options or access method of a relation that has some stored,
 * or of a slimheap table it adds columns to (a narrow one stores none, and
 * its 9th column stores a mode before core checks the options the
 * statement sets, or before it leaves slimheap), or makes a table with
 * storage slimheap (it gets the setting's mode).
 * The event trigger asks for every statement; the hook for all but ALTER
 * TABLE, which it looks up itself, to hand core the relation it found.
 */
bool
slim_statement_needs_hook(Node *parsetree)
{
	ListCell   *lc;

	switch (nodeTag(parsetree))
	{
		case T_CreateStmt:
			return slim_list_has_option(((CreateStmt *) parsetree)->options) ||
				slim_is_repack_copy(((CreateStmt *) parsetree)->relation);
		case T_CreateTableAsStmt:
			return slim_list_has_option(((CreateTableAsStmt *) parsetree)->into->options) ||
				slim_is_repack_copy(((CreateTableAsStmt *) parsetree)->into->rel);
		case T_ViewStmt:
			return slim_list_has_option(((ViewStmt *) parsetree)->options);
		case T_IndexStmt:
			return slim_list_has_option(((IndexStmt *) parsetree)->options);
		case T_CreateSchemaStmt:
			foreach(lc, ((CreateSchemaStmt *) parsetree)->schemaElts)
			{
				if (slim_statement_needs_hook(lfirst(lc)))
					return true;
			}
			return false;
		case T_AlterTableStmt:
			foreach(lc, ((AlterTableStmt *) parsetree)->cmds)
			{
				AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

				if ((cmd->subtype == AT_SetRelOptions ||
					 cmd->subtype == AT_ResetRelOptions) &&
					slim_list_has_option((List *) cmd->def))
					return true;
			}
			{
				AlterTableStmt *stmt = (AlterTableStmt *) parsetree;

				if (!slim_alter_touches_options(stmt))
					return false;
				if (slim_alter_sets_slimheap(stmt))
					return slim_alter_names_table(stmt);
				return slim_relation_has_entries(stmt) ||
					(slim_alter_adds_column(stmt) &&
					 slim_alter_names_slimheap(stmt));
			}
		default:
			return false;
	}
}

/*
 * Where a creating statement keeps its WITH list.  Also returns the name of
 * the relation, whether the statement skips an existing one (IF NOT EXISTS)
 * and whether it always creates it (EXPLAIN without ANALYZE does not).
 */
List **
slim_create_options(Node *parsetree, RangeVar **relation,
					bool *if_not_exists, bool *creates)
{
	CreateTableAsStmt *ctas;

	*creates = true;
	switch (nodeTag(parsetree))
	{
		case T_CreateStmt:
			{
				CreateStmt *stmt = (CreateStmt *) parsetree;

				*relation = stmt->relation;
				*if_not_exists = stmt->if_not_exists;
				return &stmt->options;
			}
		case T_CreateTableAsStmt:
			ctas = (CreateTableAsStmt *) parsetree;
			break;
		case T_ExplainStmt:
			{
				Query	   *query = (Query *) ((ExplainStmt *) parsetree)->query;

				if (!IsA(query, Query) || query->commandType != CMD_UTILITY ||
					!IsA(query->utilityStmt, CreateTableAsStmt))
					return NULL;
				ctas = (CreateTableAsStmt *) query->utilityStmt;
				*creates = false;
				break;
			}
		default:
			return NULL;
	}
	*relation = ctas->into->rel;
	*if_not_exists = ctas->if_not_exists;
	return &ctas->into->options;
}

/*
 * Whether a statement creates a table (or materialized view) with storage
 * whose access method is slimheap: named by USING, or the session's
 * default_table_access_method.  Such a table gets the mode of
 * slimheap.default_null_bitmap stored, by the hook (slim_options_pending.c).
 */
static bool
slim_statement_creates_slimheap(Node *parsetree)
{
	const char *am;
	ListCell   *lc;

	switch (nodeTag(parsetree))
	{
		case T_CreateStmt:
			if (((CreateStmt *) parsetree)->partspec != NULL)
				return false;	/* a partitioned table has no rows */
			am = ((CreateStmt *) parsetree)->accessMethod;
			break;
		case T_CreateTableAsStmt:
			am = ((CreateTableAsStmt *) parsetree)->into->accessMethod;
			break;
		case T_CreateSchemaStmt:
			foreach(lc, ((CreateSchemaStmt *) parsetree)->schemaElts)
			{
				if (slim_statement_creates_slimheap(lfirst(lc)))
					return true;
			}
			return false;
		default:
			return false;
	}
	if (am == NULL)
		am = default_table_access_method;
	return am != NULL && strcmp(am, "slimheap") == 0;
}

/*
 * How many statements the hook is running.  Zero in the event trigger means
 * the hook did not see the statement: the library was loaded too late.
 */
static int	slim_hook_depth = 0;

void
slim_options_hook_enter(void)
{
	slim_hook_depth++;
}

void
slim_options_hook_leave(void)
{
	slim_hook_depth--;
}

/*
 * ddl_command_start event trigger created by the extension script.  In a
 * session that had the library loaded when the statement started, the hook
 * runs the statement and there is nothing to check.  Otherwise calling this
 * function has just loaded the library, too late for this statement: core
 * would reject our options with an obscure message, or, for SET ACCESS
 * METHOD heap, keep entries on the table that core cannot validate.
 */
Datum
slimheap_options_guard(PG_FUNCTION_ARGS)
{
	EventTriggerData *trigdata;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"slimheap_options_guard\" must be fired by an event trigger")));
	trigdata = (EventTriggerData *) fcinfo->context;

	if (slim_hook_depth == 0 && slim_statement_needs_hook(trigdata->parsetree))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("slimheap options need the slimheap library loaded before the statement starts"),
				 errdetail("This session loaded the library only while running this statement, too late to handle its slimheap options."),
				 errhint("Add slimheap to shared_preload_libraries and restart the server. In this session the library is loaded now: run the statement again.")));

	/* the new table's mode is stored by the hook */
	if (slim_hook_depth == 0 && slim_statement_creates_slimheap(trigdata->parsetree))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("a new slimheap table needs the slimheap library loaded before the statement starts"),
				 errdetail("This session loaded the library only while running this statement, too late to store the mode slimheap.default_null_bitmap names in the new table."),
				 errhint("Add slimheap to shared_preload_libraries and restart the server. In this session the library is loaded now: run the statement again.")));

	/* slim_identity.c re-lays the rows after the ALTER only in the hook */
	if (slim_hook_depth == 0 && IsA(trigdata->parsetree, AlterTableStmt) &&
		slim_alter_sets_identity_full((AlterTableStmt *) trigdata->parsetree) &&
		slim_alter_names_slimheap((AlterTableStmt *) trigdata->parsetree))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("REPLICA IDENTITY FULL on a slimheap table needs the slimheap library loaded before the statement starts"),
				 errdetail("This session loaded the library only while running this statement, too late to re-lay the rows that have compressed tails."),
				 errhint("Add slimheap to shared_preload_libraries and restart the server. In this session the library is loaded now: run the statement again.")));

	PG_RETURN_VOID();
}
