/*-------------------------------------------------------------------------
 *
 * slim_options_ddl.c
 *	  The DDL statements that carry slimheap.* options: CREATE TABLE (also
 *	  PARTITION OF), CREATE TABLE AS, CREATE MATERIALIZED VIEW, and ALTER
 *	  TABLE / ALTER MATERIALIZED VIEW with SET (...), RESET (...) and SET
 *	  ACCESS METHOD.
 *
 * Core validates every reloption of a table against its own list and knows
 * no slimheap.* option (PostgreSQL 15 to 18 have no table AM reloptions
 * callback).  So a ProcessUtility hook takes our options out of the
 * statement, lets core run the rest with its own checks, locks and
 * validation, and stores ours in pg_class.reloptions itself:
 *
 * - CREATE: when core creates the relation (the post-create object access
 *	 hook, before any row is written, which matters for CREATE TABLE AS).
 * - ALTER: core's SET and RESET validate the *whole* stored array, so a
 *	 table's stored slimheap entries are taken out while core runs, and the
 *	 final ones put back afterwards.  Core looks the name up again after the
 *	 ddl_command_start event triggers, which may change search_path or create
 *	 a table of the same name: it gets the relation the hook locked, by a
 *	 schema-qualified name.  A rewrite in the same statement (SET
 *	 ACCESS METHOD, ALTER COLUMN TYPE) copies pg_class.reloptions to the new
 *	 heap, so the final entries are stored on that copy when core creates it.
 *
 * The hook exists only in sessions that loaded the library before the
 * statement started.  For the others, an event trigger of the extension
 * (slim_options_guard.c) stops any statement the hook should have seen.
 * What the hook stores, and on what, is slim_options_store.c; running core
 * and storing entries on the relation it creates, slim_options_pending.c.
 *
 * Core's read-only, recovery and permission checks come first, and a
 * statement without slimheap options on a relation without slimheap entries
 * is core's alone (slim_dispatch()).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/options/slim_options_ddl.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "commands/tablecmds.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "tcop/cmdtag.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"

#include "slim_options.h"

/* one SET (...) or RESET (...) list of an ALTER, reduced to our options */
typedef struct SlimChange
{
	List	   *defs;
	bool		is_reset;
} SlimChange;

/*
 * The copy pg_repack makes of table original (slim_options_repack.c): the
 * statement, which names no access method, creates it with the original's,
 * and a slimheap copy gets the original's slimheap entries with the mode
 * stored explicitly, whatever the WITH list says (pg_repack copies the
 * original's reloptions into it) and whatever the session's defaults are.
 */
static void
slim_create_repack_copy(const SlimUtilityCall *call, Oid original, Oid amoid)
{
	PlannedStmt *pstmt = copyObject(call->pstmt);
	Node	   *parsetree = pstmt->utilityStmt;
	char	   *am = get_am_name(amoid);
	bool		is_slimheap = slim_options_am_is_slimheap(amoid);
	RangeVar   *relation;
	bool		if_not_exists;
	bool		creates;
	List	  **options;
	List	   *others;
	SlimPending pending;

	options = slim_create_options(parsetree, &relation, &if_not_exists,
								  &creates);
	(void) slim_split_options(*options, &others);
	*options = others;
	if (IsA(parsetree, CreateStmt))
		((CreateStmt *) parsetree)->accessMethod = am;
	else
		((CreateTableAsStmt *) parsetree)->into->accessMethod = am;

	pending.kind = SLIM_PENDING_CREATE;
	pending.relation = relation;
	pending.relid = InvalidOid;
	pending.entries = is_slimheap ?
		slim_builtin_mode_entries(slim_stored_entries(original),
								  slim_relation_natts(original)) : NIL;
	pending.defs = NIL;
	pending.named = is_slimheap;
	pending.applied = false;
	pending.resets_mode = false;
	slim_run_core_pending(call, pstmt, &pending);
}

/*
 * CREATE TABLE (also PARTITION OF), CREATE TABLE AS, CREATE MATERIALIZED
 * VIEW, EXPLAIN ANALYZE CREATE TABLE AS: check our options, run the statement
 * without them, and store them when core creates the relation.  CREATE ... IF
 * NOT EXISTS on an existing relation creates nothing and stores nothing: as
 * core does with its own options, ours are checked only when the relation
 * is created, so a script that runs twice gets core's NOTICE the second
 * time, whatever its options.
 */
static void
slim_create(const SlimUtilityCall *call)
{
	RangeVar   *relation;
	bool		if_not_exists;
	bool		creates;
	List	  **options;
	List	   *others;
	PlannedStmt *pstmt;
	SlimPending pending;
	Oid			original;
	Oid			amoid;

	options = slim_create_options(call->pstmt->utilityStmt, &relation,
								  &if_not_exists, &creates);
	if (options == NULL)
	{
		slim_run_core(call, call->pstmt);
		return;
	}
	if (creates && OidIsValid(original = slim_repack_original(relation, &amoid)))
	{
		slim_create_repack_copy(call, original, amoid);
		return;
	}

	pending.kind = SLIM_PENDING_CREATE;
	pending.relid = InvalidOid;
	pending.entries = NIL;
	pending.defs = NIL;
	pending.named = slim_list_has_option(*options);
	pending.applied = false;
	pending.resets_mode = false;
	if (!pending.named)
	{
		/* only slimheap.default_null_bitmap, if the table uses slimheap */
		pending.relation = relation;
		slim_run_core_pending(call, call->pstmt, &pending);
		return;
	}

	pstmt = copyObject(call->pstmt);
	options = slim_create_options(pstmt->utilityStmt, &relation,
								  &if_not_exists, &creates);

	pending.relation = relation;
	if (if_not_exists)
		pending.defs = slim_split_options(*options, &others);
	else
		pending.entries = slim_option_entries(*options, false);
	(void) slim_split_options(*options, &others);
	*options = others;

	slim_run_core_pending(call, pstmt, &pending);

	if (creates && !if_not_exists && !pending.applied)
		elog(ERROR, "slimheap options were not stored: relation \"%s\" was not seen being created",
			 relation->relname);
}

/*
 * CREATE VIEW and CREATE INDEX accept reloptions too, none of ours.
 */
static void
slim_refuse_options(const SlimUtilityCall *call, const List *options,
					const char *relname, char relkind)
{
	if (slim_list_has_option(options))
	{
		if (relname != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("cannot set slimheap options on \"%s\"", relname),
					 errdetail_relkind_not_supported(relkind)));
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot set slimheap options on an index"),
				 errdetail_relkind_not_supported(relkind)));
	}
	slim_run_core(call, call->pstmt);
}

/*
 * ALTER TABLE / ALTER MATERIALIZED VIEW (/ VIEW / INDEX) with SET (...),
 * RESET (...) or SET ACCESS METHOD.  The relation is looked up and locked
 * here, whatever the statement names, and core is handed that relation:
 * deciding on an unlocked lookup, or letting core look the name up again,
 * could act on two different tables.
 */
static void
slim_alter(const SlimUtilityCall *call)
{
	AlterTableStmt *stmt;
	PlannedStmt *pstmt;
	bool		has_ours = false;
	const char *new_am = NULL;
	List	   *changes = NIL;
	List	   *cmds = NIL;
	ListCell   *lc;
	LOCKMODE	lockmode;
	Oid			relid;
	Relation	rel;
	char		relname[NAMEDATALEN];
	char		relkind;
	Oid			relam;
	List	   *stored;
	List	   *entries;
	bool		becomes_slimheap;
	bool		resets_mode = false;
	int			natts;
	SlimPending pending;

	/* core's statement: ours taken out, subcommands left empty dropped */
	pstmt = copyObject(call->pstmt);
	stmt = (AlterTableStmt *) pstmt->utilityStmt;
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (cmd->subtype == AT_SetRelOptions ||
			cmd->subtype == AT_ResetRelOptions)
		{
			List	   *others;
			List	   *ours = slim_split_options((List *) cmd->def, &others);

			if (ours != NIL)
			{
				SlimChange *change = palloc(sizeof(SlimChange));

				has_ours = true;
				change->defs = ours;
				change->is_reset = cmd->subtype == AT_ResetRelOptions;
				changes = lappend(changes, change);
				if (others == NIL)
					continue;
				cmd->def = (Node *) others;
			}
		}
		/* no name: SET ACCESS METHOD DEFAULT (PostgreSQL 17 and later) */
		else if (cmd->subtype == AT_SetAccessMethod)
			new_am = cmd->name != NULL ? cmd->name : default_table_access_method;
		cmds = lappend(cmds, cmd);
	}
	stmt->cmds = cmds;

	/*
	 * Core's lookup, with its permission and object type checks, and the
	 * lock core itself would take (at least ShareUpdateExclusiveLock, what
	 * core's SET (fillfactor = ...) takes): a change of options affects only
	 * rows written later.
	 */
	lockmode = AlterTableGetLockLevel(stmt->cmds);
	relid = AlterTableLookupRelation(stmt, lockmode);
	if (!OidIsValid(relid))
	{
		/*
		 * IF EXISTS: core reports the missing relation.  Given our options,
		 * it refuses them should a relation of that name appear meanwhile.
		 */
		slim_run_core(call, call->pstmt);
		return;
	}

	/* the relation found, by a name no search_path can change */
	stmt->relation->catalogname = NULL;
	stmt->relation->schemaname = get_namespace_name(get_rel_namespace(relid));

	rel = relation_open(relid, NoLock);
	strlcpy(relname, RelationGetRelationName(rel), sizeof(relname));
	relkind = rel->rd_rel->relkind;
	relam = rel->rd_rel->relam;
	natts = RelationGetDescr(rel)->natts;
	relation_close(rel, NoLock);

	/*
	 * Core's alone, but for a slimheap table: a narrow one without entries
	 * that an ADD COLUMN of the statement makes wide gets its mode stored
	 * last, after core's check of the options it sets (see below).
	 */
	stored = slim_stored_entries(relid);
	if (!has_ours && stored == NIL && new_am == NULL &&
		!slim_options_am_is_slimheap(relam))
	{
		slim_run_core(call, pstmt);
		return;
	}
	/* a table that becomes slimheap gets slimheap.default_null_bitmap */
	becomes_slimheap = false;
	if (new_am != NULL)
	{
		becomes_slimheap = !slim_options_am_is_slimheap(relam);
		relam = get_table_am_oid(new_am, false);
	}

	/* the final entries: the stored ones with SET and RESET applied */
	entries = stored;
	foreach(lc, changes)
	{
		SlimChange *change = lfirst(lc);
		List	   *change_entries;
		ListCell   *le;

		/* RESET may clean a table of entries left behind, see below */
		if (!change->is_reset ||
			(relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW))
			(void) slim_options_check_target(relname, relkind, relam, false);
		change_entries = slim_option_entries(change->defs, change->is_reset);
		if (!change->is_reset)
			slim_warn_entries(change_entries);
		foreach(le, change_entries)
		{
			entries = slim_apply_entry(entries, lfirst(le), change->is_reset);
			if (change->is_reset && slim_entries_name_mode(list_make1(lfirst(le))))
				resets_mode = true;
		}
	}

	/*
	 * Only slimheap tables keep entries: leaving slimheap drops them, and so
	 * does any SET or RESET on a table that has some without using slimheap
	 * (left by a session without the library), so core accepts the table
	 * again.
	 */
	if (!(relkind == RELKIND_RELATION || relkind == RELKIND_MATVIEW) ||
		!slim_options_am_is_slimheap(relam))
		entries = NIL;
	else if (becomes_slimheap && !resets_mode)
		entries = slim_default_entries(entries, natts);
	else
		entries = slim_builtin_mode_entries(entries, natts);	/* after a RESET */

	/* core validates its SET and RESET against the whole stored array */
	if (stored != NIL)
		(void) slim_store_entries(relid, NIL);

	pending.kind = SLIM_PENDING_REWRITE;
	pending.relation = NULL;
	pending.relid = relid;
	pending.entries = entries;
	pending.defs = NIL;
	pending.named = false;
	pending.applied = false;
	pending.resets_mode = resets_mode;
	slim_run_core_pending(call, pstmt, &pending);

	/*
	 * A narrow table the statement's ADD COLUMN made wide: the setting's
	 * mode, as the column's hook stores it on other tables, or truncate
	 * after a RESET of the mode, which core runs after the ADD COLUMN.
	 */
	if ((relkind == RELKIND_RELATION || relkind == RELKIND_MATVIEW) &&
		slim_options_am_is_slimheap(relam))
		entries = resets_mode ?
			slim_builtin_mode_entries(entries, slim_relation_natts(relid)) :
			slim_default_entries(entries, slim_relation_natts(relid));
	(void) slim_store_entries_after(relid, entries, stored);
	if (has_ours)
		InvokeObjectPostAlterHook(RelationRelationId, relid, 0);
}

/*
 * The checks standard_ProcessUtility() makes first, for statements that
 * change the database (all those the hook works on but EXPLAIN): not in a
 * read-only transaction, in parallel mode or during recovery.  Running them
 * before the hook looks up, locks or writes anything gives core's own error
 * (on a hot standby, "cannot execute ALTER TABLE in a read-only
 * transaction") where the hook would otherwise fail first with another one,
 * or write pg_class before core rejects the statement.
 */
static void
slim_check_writable(Node *parsetree)
{
	const char *cmdname;

	if (!XactReadOnly && !IsInParallelMode())
		return;
	cmdname = GetCommandTagName(CreateCommandTag(parsetree));
	PreventCommandIfReadOnly(cmdname);
	PreventCommandIfParallelMode(cmdname);
	PreventCommandDuringRecovery(cmdname);
}

static void
slim_dispatch(const SlimUtilityCall *call)
{
	Node	   *parsetree = call->pstmt->utilityStmt;

	switch (nodeTag(parsetree))
	{
		case T_ExplainStmt:
			/* only EXPLAIN ANALYZE CREATE TABLE AS creates: core checks it */
			slim_create(call);
			return;
		case T_AlterTableStmt:
			/* every change of options: the hook looks the relation up */
			if (!slim_alter_touches_options((AlterTableStmt *) parsetree))
				slim_run_core(call, call->pstmt);
			else
			{
				slim_check_writable(parsetree);
				slim_alter(call);
			}
			return;
		case T_CreateStmt:
		case T_CreateTableAsStmt:
		case T_ViewStmt:
		case T_IndexStmt:
			break;
		default:
			slim_run_core(call, call->pstmt);
			return;
	}

	/*
	 * A statement that names no slimheap option, on a relation that has no
	 * slimheap entries, is core's alone, except that a new slimheap table
	 * gets slimheap.default_null_bitmap.
	 */
	if (!slim_statement_needs_hook(parsetree))
	{
		if (IsA(parsetree, CreateStmt) || IsA(parsetree, CreateTableAsStmt))
			slim_create(call);
		else
			slim_run_core(call, call->pstmt);
		return;
	}
	slim_check_writable(parsetree);

	switch (nodeTag(parsetree))
	{
		case T_CreateStmt:
		case T_CreateTableAsStmt:
			slim_create(call);
			break;
		case T_ViewStmt:
			{
				ViewStmt   *stmt = (ViewStmt *) parsetree;

				slim_refuse_options(call, stmt->options, stmt->view->relname,
									RELKIND_VIEW);
				break;
			}
		case T_IndexStmt:
			{
				IndexStmt  *stmt = (IndexStmt *) parsetree;

				slim_refuse_options(call, stmt->options, stmt->idxname,
									RELKIND_INDEX);
				break;
			}
		default:
			elog(ERROR, "unexpected statement type %d", (int) nodeTag(parsetree));
	}
}

static void
slim_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
					bool readOnlyTree, ProcessUtilityContext context,
					ParamListInfo params, QueryEnvironment *queryEnv,
					DestReceiver *dest, QueryCompletion *qc)
{
	SlimUtilityCall call;
	SlimPending *outer;

	call.pstmt = pstmt;
	call.queryString = queryString;
	call.readOnlyTree = readOnlyTree;
	call.context = context;
	call.params = params;
	call.queryEnv = queryEnv;
	call.dest = dest;
	call.qc = qc;

	/*
	 * BEGIN, COMMIT and the like carry no options and fire no event
	 * triggers: straight on, without the bookkeeping below (two of them
	 * in every pgbench transaction).
	 */
	if (IsA(pstmt->utilityStmt, TransactionStmt))
	{
		slim_run_core(&call, pstmt);
		return;
	}

	/* the entries of an outer statement of ours are not this one's */
	outer = slim_pending_swap(NULL);
	slim_options_hook_enter();
	PG_TRY();
	{
		slim_dispatch(&call);
	}
	PG_FINALLY();
	{
		slim_options_hook_leave();
		(void) slim_pending_swap(outer);
	}
	PG_END_TRY();
}

/*
 * Install the DDL hooks and define slimheap.default_null_bitmap.  routine is
 * slimheap's table access method routine: how the hooks recognise slimheap
 * (the options code calls nothing of the access method's).
 */
void
slim_options_init(const TableAmRoutine *routine)
{
	slim_options_default_init();
	slim_options_store_init(routine);
	slim_options_pending_init(slim_ProcessUtility);
}
