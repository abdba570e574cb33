/*-------------------------------------------------------------------------
 *
 * slim_index_stmt.c
 *	  The statements around index builds on slimheap tables: which utility
 *	  statement is under way, the rows a plain build leaves to move when
 *	  its statement ends, and the planner's parallel workers for builds.
 *	  Its utility hook also hands CREATE INDEX to slim_index_fresh.c and
 *	  slim_index_cic.c first, and ALTER TABLE to slim_identity.c and
 *	  slim_alter_warn.c.
 *
 * A plain build that meets rows it cannot re-lay out before its scan (a
 * table that left compress mode, REINDEX, ...) moves them when the
 * utility statement that built ends (slim_index_utility()), or before a
 * commit inside REINDEX SCHEMA and DATABASE (slim_index_xact_callback()).
 * docs/format.md, "Index builds".
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_index_stmt.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/plancat.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "tcop/utility.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "slim_compat.h"
#include "slim_index.h"
#include "slimheap.h"

/* utility statements under way in this backend, and whether concurrent */
static int	slim_ddl_depth = 0;
static bool slim_ddl_concurrent = false;
static bool slim_ddl_reindex = false;	/* a REINDEX among them */

/*
 * Tables whose rows a plain build left to move, with the depth of the
 * utility statement that built (its end moves them) and the subtransaction
 * (an abort takes the entry and the lock away); in TopTransactionContext.
 */
typedef struct SlimPendingMove
{
	Oid			relid;
	int			depth;
	SubTransactionId subid;
	double		hidden_share;	/* of the live rows, the largest a build saw */
} SlimPendingMove;

/* share of hidden rows from which a table under AccessExclusiveLock is rewritten */
#define SLIM_REWRITE_SHARE	0.25

static List *slim_pending_moves = NIL;

static ProcessUtility_hook_type prev_utility_hook = NULL;
static slim_rel_hook_type prev_relation_info_hook = NULL;

/* remember that rel's rows must move when this statement ends */
void
slim_index_note_pending(Relation rel, double hidden_share)
{
	ListCell   *lc;
	SlimPendingMove *pm;
	MemoryContext oldcxt;

	foreach(lc, slim_pending_moves)
	{
		pm = (SlimPendingMove *) lfirst(lc);
		if (pm->relid == RelationGetRelid(rel))
		{
			pm->depth = Min(pm->depth, slim_ddl_depth);
			pm->hidden_share = Max(pm->hidden_share, hidden_share);
			return;
		}
	}
	oldcxt = MemoryContextSwitchTo(TopTransactionContext);
	pm = palloc(sizeof(SlimPendingMove));
	pm->relid = RelationGetRelid(rel);
	pm->depth = slim_ddl_depth;
	pm->subid = GetCurrentSubTransactionId();
	pm->hidden_share = hidden_share;
	slim_pending_moves = lappend(slim_pending_moves, pm);
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The moves the plain builds of this transaction left, of statements at
 * depth min_depth or deeper (0: all).
 */
static void
slim_run_pending_moves(int min_depth)
{
	ListCell   *lc;

	foreach(lc, slim_pending_moves)
	{
		SlimPendingMove *pm = (SlimPendingMove *) lfirst(lc);
		Relation	rel;

		if (pm->depth < min_depth)
			continue;
		slim_pending_moves = foreach_delete_current(slim_pending_moves, lc);
		/* the build's lock is still held; the table may be gone since */
		rel = try_table_open(pm->relid, NoLock);
		if (rel != NULL && !slim_is_slimheap_relation(rel))
		{
			table_close(rel, NoLock);
			rel = NULL;
		}
		if (rel == NULL)
			;
		else if (pm->hidden_share >= SLIM_REWRITE_SHARE &&
				 CheckRelationLockedByMe(rel, AccessExclusiveLock, false))
		{
			/* ALTER TABLE ... ADD PRIMARY KEY after a load, say: cheaper */
			ereport(NOTICE,
					(errmsg("rewriting table \"%s\" so that its rows keep the columns its indexes read in their prefix",
							RelationGetRelationName(rel)),
					 errdetail("%.0f%% of its rows kept an indexed value in their compressed tail.",
							   pm->hidden_share * 100)));
			table_close(rel, NoLock);
			slim_rewrite_table(pm->relid);
		}
		else
		{
			slim_move_hidden_rows(rel, InvalidOid, NULL, 0);
			table_close(rel, NoLock);
		}
		pfree(pm);
	}
}

static bool
slim_statement_is_concurrent(Node *parsetree)
{
	ListCell   *lc;

	if (IsA(parsetree, IndexStmt))
		return ((IndexStmt *) parsetree)->concurrent;
	if (!IsA(parsetree, ReindexStmt))
		return false;
	foreach(lc, ((ReindexStmt *) parsetree)->params)
	{
		DefElem    *opt = (DefElem *) lfirst(lc);

		if (strcmp(opt->defname, "concurrently") == 0 && defGetBoolean(opt))
			return true;
	}
	return false;
}

/* rows a plain build left are moved as the statement that built it ends */
static void
slim_index_utility(PlannedStmt *pstmt, const char *queryString,
				   bool readOnlyTree, ProcessUtilityContext context,
				   ParamListInfo params, QueryEnvironment *queryEnv,
				   DestReceiver *dest, QueryCompletion *qc)
{
	bool		save_concurrent = slim_ddl_concurrent;
	bool		save_reindex = slim_ddl_reindex;
	bool		was_full;
	Oid			identity_relid = slim_identity_before_alter(pstmt->utilityStmt,
															&was_full);
	int			prefix_base;
	Oid			warn_relid = slim_alter_warn_before(pstmt->utilityStmt,
													&prefix_base);
	volatile bool done = false;
	volatile bool cic_prepared = false;

	slim_index_before_create(pstmt->utilityStmt, queryString);
	if (slim_statement_is_concurrent(pstmt->utilityStmt))
		slim_ddl_concurrent = true;
	if (IsA(pstmt->utilityStmt, ReindexStmt))
		slim_ddl_reindex = true;
	slim_ddl_depth++;
	PG_TRY();
	{
		cic_prepared = slim_index_cic_before(pstmt->utilityStmt, queryString,
											 context);
		if (prev_utility_hook)
			prev_utility_hook(pstmt, queryString, readOnlyTree, context,
							  params, queryEnv, dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree,
									context, params, queryEnv, dest, qc);
		done = true;
	}
	PG_FINALLY();
	{
		/* first: what follows may fail, and this must be undone anyway */
		slim_ddl_depth--;
		slim_ddl_concurrent = save_concurrent;
		slim_ddl_reindex = save_reindex;
		if (cic_prepared)
			slim_index_cic_after(done);
	}
	PG_END_TRY();

	/* before the next statement (of a DO block, say) can update them */
	if (slim_pending_moves != NIL && IsTransactionState())
		slim_run_pending_moves(slim_ddl_depth + 1);
	slim_index_columns_after_alter(pstmt->utilityStmt);
	slim_index_columns_record();
	if (OidIsValid(identity_relid))
		slim_identity_after_alter(identity_relid, was_full);
	if (OidIsValid(warn_relid))
		slim_alter_warn_after(warn_relid, prefix_base);
}

/*
 * plan_create_index_workers() plans a dummy query over the table (no join
 * tree, an inheritance parent): builds that may meet hidden values get no
 * parallel workers.
 */
static void
slim_relation_info(SLIM_REL_HOOK_PARAMS)
{
	Oid			relid;
	bool		inhparent;

	if (prev_relation_info_hook)
		prev_relation_info_hook(SLIM_REL_HOOK_ARGS);
	if (!slim_rel_hook_args(relid, inhparent))
		return;

	if (inhparent && root->parse->jointree == NULL &&
		root->parse->commandType == CMD_SELECT &&
		rel->reloptkind == RELOPT_BASEREL)
	{
		Relation	table = table_open(relid, NoLock);

		if (slim_is_slimheap_relation(table) &&
			slim_get_relinfo(table)->options.null_bitmap ==
			SLIM_NULL_BITMAP_COMPRESS)
			rel->rel_parallel_workers = 0;
		table_close(table, NoLock);
	}
}

/* REINDEX SCHEMA and DATABASE commit inside the statement: move first */
static void
slim_index_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			if (slim_pending_moves != NIL)
				slim_run_pending_moves(0);
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			slim_index_columns_forget();
			slim_pending_moves = NIL;
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			slim_pending_moves = NIL;	/* freed with TopTransactionContext */
			break;
		default:
			break;
	}
}

/* an aborted subtransaction's builds are gone, and so is its lock */
static void
slim_index_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
							SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	if (event == SUBXACT_EVENT_ABORT_SUB || event == SUBXACT_EVENT_COMMIT_SUB)
		slim_index_columns_subxact(event == SUBXACT_EVENT_ABORT_SUB,
								   mySubid, parentSubid);
	foreach(lc, slim_pending_moves)
	{
		SlimPendingMove *pm = (SlimPendingMove *) lfirst(lc);

		if (pm->subid != mySubid)
			continue;
		if (event == SUBXACT_EVENT_ABORT_SUB)
		{
			slim_pending_moves = foreach_delete_current(slim_pending_moves, lc);
			pfree(pm);
		}
		else if (event == SUBXACT_EVENT_COMMIT_SUB)
			pm->subid = parentSubid;
	}
}

/* whether a utility statement is under way in this backend */
bool
slim_index_in_ddl(void)
{
	return slim_ddl_depth > 0;
}

/* whether a REINDEX is under way (its builds make no new index) */
bool
slim_index_in_reindex(void)
{
	return slim_ddl_depth > 0 && slim_ddl_reindex;
}

/* whether it is a CONCURRENTLY one (CREATE INDEX, REINDEX) */
bool
slim_index_in_concurrent_ddl(void)
{
	return slim_ddl_depth > 0 && slim_ddl_concurrent;
}

void
slim_index_stmt_init(void)
{
	prev_utility_hook = ProcessUtility_hook;
	ProcessUtility_hook = slim_index_utility;
	prev_relation_info_hook = slim_rel_hook;
	slim_rel_hook = slim_relation_info;
	RegisterXactCallback(slim_index_xact_callback, NULL);
	RegisterSubXactCallback(slim_index_subxact_callback, NULL);
}
