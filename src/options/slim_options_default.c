/*-------------------------------------------------------------------------
 *
 * slim_options_default.c
 *	  The slimheap.default_null_bitmap setting: the slimheap.null_bitmap mode
 *	  of slimheap tables created without one.
 *
 * The setting is read only when a table becomes a slimheap table (CREATE
 * TABLE, PARTITION OF, CREATE TABLE AS, SELECT INTO, CREATE MATERIALIZED
 * VIEW, ALTER TABLE ... SET ACCESS METHOD slimheap) or, for a narrow table,
 * when ADD COLUMN makes it wide: the mode in force then is written into the
 * table's pg_class.reloptions, next to the options the statement names.  So \d+ and pg_dump show it, a dump restores it under
 * any setting, and a later change of the setting leaves existing tables as
 * they are.  A table that does not use slimheap gets nothing.
 *
 * slim_options_pending.c (CREATE) and slim_options_ddl.c (ALTER ... SET
 * ACCESS METHOD) call slim_default_entries() where they store the options
 * of a new slimheap table; this file holds the setting itself.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/options/slim_options_default.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "nodes/makefuncs.h"
#include "nodes/value.h"
#include "utils/guc.h"

#include "slim_options.h"

/* the entry every slimheap table gets, "slimheap.null_bitmap=<mode>" */
#define SLIM_NULL_BITMAP_ENTRY	SLIM_OPTION_NAMESPACE ".null_bitmap="

/*
 * The values of the setting, as slimheap.null_bitmap spells them
 * (slim_options.c checks and stores the entry made from them).
 */
static const struct config_enum_entry slim_null_bitmap_options[] = {
	{"full", SLIM_NULL_BITMAP_FULL, false},
	{"truncate", SLIM_NULL_BITMAP_TRUNCATE, false},
	{"compress", SLIM_NULL_BITMAP_COMPRESS, false},
	{NULL, 0, false}
};

static int	slim_default_null_bitmap = SLIM_NULL_BITMAP_DEFAULT;

/*
 * Define the setting; from _PG_init().  PGC_USERSET, so that ALTER DATABASE
 * ... SET, ALTER ROLE ... SET and SET all work.
 */
void
slim_options_default_init(void)
{
	DefineCustomEnumVariable("slimheap.default_null_bitmap",
							 "Sets the slimheap.null_bitmap mode of new slimheap tables created without one.",
							 "The mode is written into the new table's options, so changing this setting later does not change existing tables.",
							 &slim_default_null_bitmap,
							 SLIM_NULL_BITMAP_DEFAULT,
							 slim_null_bitmap_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	MarkGUCPrefixReserved(SLIM_OPTION_NAMESPACE);
}

/*
 * Whether entries hold a slimheap.null_bitmap entry: "slimheap.null_bitmap=
 * <mode>", or the bare name a RESET's entries hold
 */
bool
slim_entries_name_mode(const List *entries)
{
	ListCell   *lc;
	size_t		len = strlen(SLIM_NULL_BITMAP_ENTRY) - 1;

	foreach(lc, entries)
	{
		const char *entry = lfirst(lc);

		if (strncmp(entry, SLIM_NULL_BITMAP_ENTRY, len) == 0 &&
			(entry[len] == '=' || entry[len] == '\0'))
			return true;
	}
	return false;
}

/* entries with slimheap.null_bitmap=<mode> appended when they name none */
static List *
slim_mode_entries(List *entries, int mode_value)
{
	const char *mode = NULL;
	const struct config_enum_entry *e;
	DefElem    *def;

	if (slim_entries_name_mode(entries))
		return entries;

	for (e = slim_null_bitmap_options; e->name != NULL; e++)
	{
		if (e->val == mode_value)
			mode = e->name;
	}
	Assert(mode != NULL);

	/* made as WITH (slimheap.null_bitmap = <mode>) would make it */
	def = makeDefElemExtended(SLIM_OPTION_NAMESPACE, "null_bitmap",
							  (Node *) makeString(pstrdup(mode)),
							  DEFELEM_UNSPEC, -1);
	return list_concat(entries, slim_option_entries(list_make1(def), false));
}

/*
 * The entries to store on a relation of natts attributes that becomes a
 * slimheap table, or on a slimheap table that has just become wide: entries
 * (the options its statement names, already checked), with the setting's
 * slimheap.null_bitmap appended when they name none.
 *
 * A narrow table (SLIM_NARROW_NATTS) stores heap's full form whatever its
 * mode, so it gets no mode from the setting: an entry would only make core
 * parse its reloptions, and every insert then computes the fill factor's
 * free space (RelationGetTargetPageFreeSpace()), a cost heap's tables
 * without options do not pay.  The column that makes it wide stores the
 * setting then (slim_options_pending.c), before any row of the new shape is
 * written.
 */
List *
slim_default_entries(List *entries, int natts)
{
	if (natts <= SLIM_NARROW_NATTS)
		return entries;
	return slim_mode_entries(entries, slim_default_null_bitmap);
}

/*
 * The entries to store on a slimheap table of natts attributes that stays
 * one: entries, with the built-in mode (truncate) appended when they name
 * none.  A wide slimheap table without a stored mode is truncate whatever
 * the setting says, but a dump would restore it under the restoring
 * database's setting; stored, the mode survives (RESET
 * (slimheap.null_bitmap), or a table made before the setting existed).  A
 * narrow table gets none, as slim_default_entries() says.
 */
List *
slim_builtin_mode_entries(List *entries, int natts)
{
	if (natts <= SLIM_NARROW_NATTS)
		return entries;
	return slim_mode_entries(entries, SLIM_NULL_BITMAP_DEFAULT);
}

/*
 * Whether a relation of kind relkind that core has just created, for a
 * statement that names no slimheap option, gets the setting's mode: a table
 * or materialized view of access method slimheap.  Nothing else is touched,
 * and nothing is said about it.
 */
bool
slim_default_applies(char relkind, bool is_slimheap)
{
	return is_slimheap &&
		(relkind == RELKIND_RELATION || relkind == RELKIND_MATVIEW);
}
