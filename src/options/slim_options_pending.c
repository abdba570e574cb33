/*-------------------------------------------------------------------------
 *
 * slim_options_pending.c
 *	  Running a statement through core from the DDL hook, with the slimheap
 *	  entries to store on the relation core creates for it.
 *
 * slim_options_ddl.c decides what a statement's entries are; core creates
 * the relation (CREATE TABLE, CREATE TABLE AS, the new heap of a rewrite),
 * and the post-create object access hook here stores the entries on it
 * before any row is written; the post-create hook of a column stores the mode
 * of a narrow table that the column makes wide.  slim_options_ddl.c's
 * ProcessUtility hook is installed here too: slim_run_core() passes a
 * statement on to the hook that was there before it, saved in this file as
 * it goes in.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/options/slim_options_pending.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "tcop/utility.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"

#include "slim_options.h"

static ProcessUtility_hook_type prev_ProcessUtility = NULL;
static object_access_hook_type prev_object_access = NULL;
static slim_relation_dropped_fn slim_relation_dropped = NULL;

/* set only while core runs a statement of ours */
static SlimPending *slim_pending = NULL;

/*
 * Every statement of ours that core runs now, innermost first (linked
 * through SlimPending.outer): a statement that an event trigger runs inside
 * one of ours swaps slim_pending out, yet the outer one has still taken its
 * table's entries out for core's check.
 */
static SlimPending *slim_running = NULL;

/*
 * Run pstmt (the caller's statement, or our modified copy of it) through the
 * rest of the hook chain and core.
 */
void
slim_run_core(const SlimUtilityCall *call, PlannedStmt *pstmt)
{
	/* a copy of ours is ours to scribble on */
	bool		readOnlyTree = pstmt == call->pstmt ? call->readOnlyTree : false;

	if (prev_ProcessUtility)
		prev_ProcessUtility(pstmt, call->queryString, readOnlyTree,
							call->context, call->params, call->queryEnv,
							call->dest, call->qc);
	else
		standard_ProcessUtility(pstmt, call->queryString, readOnlyTree,
								call->context, call->params, call->queryEnv,
								call->dest, call->qc);
}

/*
 * The same, pending's entries to be stored when core creates the relation
 * they are for (slim_relation_created()).
 */
void
slim_run_core_pending(const SlimUtilityCall *call, PlannedStmt *pstmt,
					  SlimPending *pending)
{
	Assert(slim_pending == NULL);
	slim_pending = pending;
	pending->outer = slim_running;
	slim_running = pending;
	PG_TRY();
	{
		slim_run_core(call, pstmt);
	}
	PG_FINALLY();
	{
		slim_running = pending->outer;
		slim_pending = NULL;
	}
	PG_END_TRY();
}

/*
 * Post-create hook: core has just created relation relid (its pg_class row
 * is inserted, not yet visible).  Store the pending entries if it is the
 * relation they are for.  Creating a relation may create others first or
 * after (sequences of serial columns, the TOAST table), hence the name test.
 */
static void
slim_relation_created(Oid relid)
{
	SlimPending *pending = slim_pending;
	Relation	rel;
	char		relname[NAMEDATALEN];
	Oid			relnamespace;
	char		relkind;
	Oid			relam;
	int			natts;
	List	   *entries;

	/* the relcache entry core built is all there is of the relation yet */
	rel = RelationIdGetRelation(relid);
	if (!RelationIsValid(rel))
		return;
	strlcpy(relname, RelationGetRelationName(rel), sizeof(relname));
	relnamespace = RelationGetNamespace(rel);
	relkind = rel->rd_rel->relkind;
	relam = rel->rd_rel->relam;
	natts = RelationGetDescr(rel)->natts;
	RelationClose(rel);

	if (pending->kind == SLIM_PENDING_CREATE)
	{
		if (pending->applied ||
			strcmp(relname, pending->relation->relname) != 0 ||
			relnamespace != RangeVarGetCreationNamespace(pending->relation))
			return;
		pending->applied = true;
		/* IF NOT EXISTS: core checks nothing of a table it skips, nor do we */
		if (pending->defs != NIL)
			pending->entries = slim_option_entries(pending->defs, false);
		if (pending->named ?
			!slim_options_check_target(relname, relkind, relam, true) :
			!slim_default_applies(relkind, slim_options_am_is_slimheap(relam)))
			return;
		/* slimheap.default_null_bitmap unless the statement names a mode */
		pending->entries = slim_default_entries(pending->entries, natts);
		slim_warn_entries(pending->entries);
		entries = pending->entries;
	}
	else
	{
		char		newheap[NAMEDATALEN];

		/* make_new_heap() names the new heap after the old one's OID */
		snprintf(newheap, sizeof(newheap), "pg_temp_%u", pending->relid);
		if (strcmp(relname, newheap) != 0)
			return;
		/*
		 * A narrow table that this statement makes wide gets a mode: the
		 * one slim_alter() stores last (the setting's, or truncate after
		 * a RESET of the mode).
		 */
		entries = pending->entries;
		if (slim_default_applies(relkind, slim_options_am_is_slimheap(relam)))
			entries = pending->resets_mode ?
				slim_builtin_mode_entries(entries, natts) :
				slim_default_entries(entries, natts);
	}
	if (entries == NIL)
		return;

	/*
	 * Make the new pg_class row visible so it can be updated.  heap.c allows
	 * this here: StoreConstraints(), called right after this hook, may do
	 * the same.
	 */
	CommandCounterIncrement();
	(void) slim_store_entries(relid, entries);
}

/*
 * Post-create hook of a column: core's ADD COLUMN (also for each inheritor
 * it reaches, and ALTER TYPE ... ADD ATTRIBUTE ... CASCADE for typed tables)
 * has just added attribute attnum to relation relid, and updated relnatts.
 * A narrow slimheap table stores no mode (slim_default_entries()); the
 * column that makes it wide (its 9th attribute) stores the setting's now,
 * before the statement writes any row of the new shape (a rewrite copies
 * the options to its new heap).  The relation whose options a statement of
 * ours changes is left to it, also from a statement an event trigger runs
 * meanwhile: core checks that relation's options, ours taken out, after
 * adding its columns, and the statement stores the final entries last.
 */
static void
slim_column_added(Oid relid, int attnum)
{
	HeapTuple	tuple;
	Form_pg_class form;
	bool		applies;
	List	   *entries;
	SlimPending *running;

	/* a wide table without a mode stays truncate (slim_builtin_mode_entries) */
	if (attnum != SLIM_NARROW_NATTS + 1)
		return;
	for (running = slim_running; running != NULL; running = running->outer)
	{
		if (running->kind == SLIM_PENDING_REWRITE && running->relid == relid)
			return;
	}
	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		return;
	form = (Form_pg_class) GETSTRUCT(tuple);
	applies = slim_default_applies(form->relkind,
								   slim_options_am_is_slimheap(form->relam));
	ReleaseSysCache(tuple);
	if (!applies)
		return;

	entries = slim_stored_entries(relid);
	if (slim_entries_name_mode(entries))
		return;
	entries = slim_default_entries(entries, attnum);
	slim_warn_entries(entries);

	/* core's update of relnatts, visible so that ours follows it */
	CommandCounterIncrement();
	(void) slim_store_entries(relid, entries);
}

static void
slim_object_access(ObjectAccessType access, Oid classId, Oid objectId,
				   int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);

	if (classId != RelationRelationId)
		return;
	if (access == OAT_DROP)
	{
		if (subId == 0 && slim_relation_dropped != NULL)
			slim_relation_dropped(objectId);
		return;
	}
	if (access != OAT_POST_CREATE)
		return;
	if (subId == 0 && slim_pending != NULL)
		slim_relation_created(objectId);
	else if (subId > 0)
		slim_column_added(objectId, subId);
}

/*
 * Make pending the entries of the statement core runs now, and return the
 * ones before: a statement run while one of ours is under way (a serial
 * column's CREATE SEQUENCE, DDL of an event trigger) is not what they are
 * for, and the outer ones come back when it is done.
 */
SlimPending *
slim_pending_swap(SlimPending *pending)
{
	SlimPending *outer = slim_pending;

	slim_pending = pending;
	return outer;
}

void
slim_options_on_drop(slim_relation_dropped_fn fn)
{
	slim_relation_dropped = fn;
}

/* install hook as the ProcessUtility hook, and the object access hook */
void
slim_options_pending_init(ProcessUtility_hook_type hook)
{
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = hook;
	prev_object_access = object_access_hook;
	object_access_hook = slim_object_access;
}
