/*-------------------------------------------------------------------------
 *
 * slim_options.h
 *	  The slimheap.* per-table options: their definitions and the handling of
 *	  the text[] that pg_class.reloptions stores them in.
 *
 * Shared by slim_options.c (what the options are, how they are spelled,
 * checked and stored), slim_options_store.c (storing them on a relation),
 * slim_options_guard.c (which statements need the hook),
 * slim_options_repack.c (pg_repack's copies), slim_options_ddl.c (the
 * DDL statements that carry them) and slim_options_pending.c (running
 * those through core, storing entries on what it creates).  The options
 * layer uses the format layer's modes and nothing of the table AM.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_options.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_OPTIONS_H
#define SLIM_OPTIONS_H

#include "access/tableam.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"

#include "slim_format.h"

/*
 * The per-table options, as parsed from pg_class.reloptions.
 */
typedef struct SlimOptions
{
	SlimNullBitmap null_bitmap;
	int			prefix_columns; /* kept in the standard prefix (compress) */
} SlimOptions;

/*
 * Entries to store on a relation that core is about to create while running
 * one of our statements (slim_options_pending.c).
 */
typedef enum SlimPendingKind
{
	SLIM_PENDING_CREATE,		/* the relation the statement creates */
	SLIM_PENDING_REWRITE		/* the new heap of a rewrite of relid */
} SlimPendingKind;

typedef struct SlimPending
{
	SlimPendingKind kind;
	const RangeVar *relation;	/* CREATE: its name */
	Oid			relid;			/* REWRITE: the table being rewritten */
	List	   *entries;		/* "slimheap.<name>=<value>" to store */
	List	   *defs;			/* CREATE IF NOT EXISTS: options, unchecked */
	bool		named;			/* CREATE: the statement names options */
	bool		applied;		/* CREATE: stored */
	bool		resets_mode;	/* REWRITE: RESET (slimheap.null_bitmap) */
	struct SlimPending *outer;	/* the statement of ours core runs it in */
} SlimPending;

/* the arguments of one ProcessUtility call */
typedef struct SlimUtilityCall
{
	PlannedStmt *pstmt;
	const char *queryString;
	bool		readOnlyTree;
	ProcessUtilityContext context;
	ParamListInfo params;
	QueryEnvironment *queryEnv;
	DestReceiver *dest;
	QueryCompletion *qc;
} SlimUtilityCall;

/* namespace of the options, as in WITH (slimheap.null_bitmap = ...) */
#define SLIM_OPTION_NAMESPACE	"slimheap"

/* slim_options.c: the options, and the text[] they are stored in */
extern PGDLLIMPORT bool slim_options_tails_decoded;
extern void slim_read_options(Oid relid, SlimOptions *opts);
extern bool slim_list_has_option(const List *defs);
extern List *slim_split_options(const List *defs, List **others);
extern List *slim_option_entries(const List *defs, bool is_reset);
extern void slim_warn_entries(const List *entries);
extern List *slim_apply_entry(List *entries, const char *entry, bool is_reset);
extern void slim_read_reloptions(Oid relid, List **entries, List **others);
extern Datum slim_build_reloptions(const List *entries, const List *others);

/* slim_options_columns.c: slimheap.index_columns */
extern char *slim_columns_canonical(const char *spelled);
extern List *slim_index_columns_of(const List *entries);
extern List *slim_column_name_nodes(const List *names);
extern char *slim_index_columns_entry(const List *names);
extern List *slim_known_index_columns(Oid relid, const List *entries,
									   const List *stored);

/* slim_options_store.c: storing entries on a relation */
extern void slim_options_store_init(const TableAmRoutine *routine);
extern bool slim_options_am_is_slimheap(Oid amoid);
extern bool slim_options_check_target(const char *relname, char relkind,
									  Oid amoid, bool on_create);
extern bool slim_store_entries(Oid relid, const List *entries);
extern bool slim_store_entries_after(Oid relid, const List *entries,
									 const List *before);
extern bool slim_store_entry(Oid relid, const char *entry, bool is_reset);
extern List *slim_stored_entries(Oid relid);
extern int	slim_relation_natts(Oid relid);

/* slim_options_default.c: slimheap.default_null_bitmap */
extern void slim_options_default_init(void);
extern bool slim_entries_name_mode(const List *entries);
extern List *slim_default_entries(List *entries, int natts);
extern List *slim_builtin_mode_entries(List *entries, int natts);
extern bool slim_default_applies(char relkind, bool is_slimheap);

/* slim_options_guard.c: which statements need the hook; is it running */
extern bool slim_alter_touches_options(const AlterTableStmt *stmt);
extern bool slim_alter_adds_column(const AlterTableStmt *stmt);
extern bool slim_alter_sets_identity_full(const AlterTableStmt *stmt);
extern bool slim_statement_needs_hook(Node *parsetree);
extern List **slim_create_options(Node *parsetree, RangeVar **relation,
								  bool *if_not_exists, bool *creates);
extern void slim_options_hook_enter(void);
extern void slim_options_hook_leave(void);

/* slim_options_repack.c: the copies pg_repack swaps in */
extern Oid	slim_repack_original(const RangeVar *relation, Oid *amoid);
extern Oid	slim_repack_copy_source(Relation rel);

/* slim_options_pending.c: core runs a statement, entries are stored */
extern void slim_run_core(const SlimUtilityCall *call, PlannedStmt *pstmt);
extern void slim_run_core_pending(const SlimUtilityCall *call,
								  PlannedStmt *pstmt, SlimPending *pending);
extern SlimPending *slim_pending_swap(SlimPending *pending);
extern void slim_options_pending_init(ProcessUtility_hook_type hook);

/*
 * Called by the object-access hook for each table or materialized view
 * dropped (the access method layer's record of full files): one hook, as
 * it runs for every name a statement looks up.
 */
typedef void (*slim_relation_dropped_fn) (Oid relid);
extern void slim_options_on_drop(slim_relation_dropped_fn fn);

/* slim_options_ddl.c: the DDL hook */
extern void slim_options_init(const TableAmRoutine *routine);

#endif							/* SLIM_OPTIONS_H */
