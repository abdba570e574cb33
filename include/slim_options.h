/*-------------------------------------------------------------------------
 *
 * slim_options.h
 *	  The slimheap.* per-table options: their definitions and the handling of
 *	  the text[] that pg_class.reloptions stores them in.
 *
 * Shared by slim_options.c (what the options are, how they are spelled,
 * checked and stored), slim_options_ddl.c (the DDL statements that carry
 * them) and slim_options_guard.c (which statements need the hook).
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_OPTIONS_H
#define SLIM_OPTIONS_H

#include "access/tableam.h"
#include "nodes/parsenodes.h"

/* namespace of the options, as in WITH (slimheap.null_bitmap = ...) */
#define SLIM_OPTION_NAMESPACE	"slimheap"

/* slim_options.c */
extern bool slim_list_has_option(const List *defs);
extern List *slim_split_options(const List *defs, List **others);
extern List *slim_option_entries(const List *defs, bool is_reset);
extern void slim_warn_entries(const List *entries);
extern List *slim_apply_entry(List *entries, const char *entry, bool is_reset);
extern void slim_read_reloptions(Oid relid, List **entries, List **others);
extern Datum slim_build_reloptions(const List *entries, const List *others);

/* slim_options_ddl.c */
extern void slim_options_ddl_init(const TableAmRoutine *routine);
extern bool slim_options_hook_active(void);

/* options/slim_options_default.c */
extern void slim_options_default_init(void);
extern List *slim_default_entries(List *entries);
extern bool slim_default_applies(char relkind, bool is_slimheap);

/* slim_options_guard.c */
extern bool slim_alter_touches_options(const AlterTableStmt *stmt);
extern bool slim_statement_needs_hook(Node *parsetree);

#endif							/* SLIM_OPTIONS_H */
