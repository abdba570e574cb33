/*-------------------------------------------------------------------------
 *
 * slim_options_columns.c
 *	  slimheap.index_columns: the columns a compress table's indexes read,
 *	  stored with its options, so that a dump carries them.
 *
 * pg_dump writes a table, then its rows, then its indexes.  Rows loaded
 * before an index exists keep its column in their compressed tail, and
 * the index build then stores most of them again (the per-row floor,
 * docs/row-floor.md §7: a restored file 1.76 times the original's).  The
 * option travels in the table's CREATE TABLE, so the rows a restore loads
 * keep those columns in their prefix from the start, and the index build
 * finds nothing to move.  The access method adds every column an index it
 * builds reads (src/am/slim_index_columns.c); a user may set it too.
 *
 * The value is a list of column names, as SQL spells identifiers,
 * separated by commas: names, not attribute numbers, because a restore
 * numbers columns anew (dropped ones leave gaps only in the original).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/options/slim_options_columns.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/varlena.h"

#include "slim_options.h"

#define SLIM_INDEX_COLUMNS_ENTRY	SLIM_OPTION_NAMESPACE ".index_columns="

/* the names of a spelled list, or false if it is no list of identifiers */
static bool
slim_columns_split(const char *spelled, List **names)
{
	char	   *copy = pstrdup(spelled);

	*names = NIL;
	if (*copy == '\0')
		return true;
	return SplitIdentifierString(copy, ',', names);
}

/* "a,b" for names a and b, each quoted as SQL needs it */
static char *
slim_columns_join(const List *names)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, names)
	{
		if (buf.len > 0)
			appendStringInfoChar(&buf, ',');
		appendStringInfoString(&buf, quote_identifier(lfirst(lc)));
	}
	return buf.data;
}

/*
 * The stored spelling of a list of column names (each once, in the order
 * given), or NULL if spelled is not such a list.
 */
char *
slim_columns_canonical(const char *spelled)
{
	List	   *names;
	List	   *unique = NIL;
	ListCell   *lc;

	if (!slim_columns_split(spelled, &names))
		return NULL;
	foreach(lc, names)
	{
		char	   *name = lfirst(lc);

		if (strlen(name) >= NAMEDATALEN)
			return NULL;
		if (!list_member(unique, makeString(name)))
			unique = lappend(unique, makeString(name));
	}
	names = NIL;
	foreach(lc, unique)
		names = lappend(names, strVal(lfirst(lc)));
	return slim_columns_join(names);
}

/*
 * The column names the slimheap.index_columns entry of entries (a
 * relation's, from slim_read_reloptions()) lists; NIL: none.
 */
List *
slim_index_columns_of(const List *entries)
{
	List	   *names = NIL;
	ListCell   *lc;

	foreach(lc, entries)
	{
		const char *entry = lfirst(lc);

		if (strncmp(entry, SLIM_INDEX_COLUMNS_ENTRY,
					strlen(SLIM_INDEX_COLUMNS_ENTRY)) == 0 &&
			!slim_columns_split(entry + strlen(SLIM_INDEX_COLUMNS_ENTRY),
								&names))
			names = NIL;		/* stored by us, canonical: cannot happen */
	}
	return names;
}

/* the entry that stores names */
char *
slim_index_columns_entry(const List *names)
{
	return psprintf(SLIM_INDEX_COLUMNS_ENTRY "%s", slim_columns_join(names));
}

/* names (a List of char *) as a List of String nodes, for list_member() */
List *
slim_column_name_nodes(const List *names)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, names)
		result = lappend(result, makeString(lfirst(lc)));
	return result;
}

/*
 * entries, with the slimheap.index_columns entry naming only columns of
 * relid: a name that is none (misspelt, or of a column renamed or dropped
 * where slimheap did not see it: a partitioned parent's, a type's) is left
 * out with a WARNING, never an error, so that a dump that carries one
 * still restores.  stored: the entries stored now; a name they hold goes
 * without a word (a column the statement dropped).
 */
List *
slim_known_index_columns(Oid relid, const List *entries,
						 const List *stored)
{
	List	   *result = NIL;
	List	   *old_names = slim_index_columns_of(stored);
	ListCell   *lc;

	foreach(lc, entries)
	{
		char	   *entry = lfirst(lc);
		List	   *names;
		List	   *known = NIL;
		ListCell   *ln;

		if (strncmp(entry, SLIM_INDEX_COLUMNS_ENTRY,
					strlen(SLIM_INDEX_COLUMNS_ENTRY)) != 0 ||
			!slim_columns_split(entry + strlen(SLIM_INDEX_COLUMNS_ENTRY),
								&names))
		{
			result = lappend(result, entry);
			continue;
		}
		foreach(ln, names)
		{
			if (get_attnum(relid, lfirst(ln)) > 0)
				known = lappend(known, lfirst(ln));
			else if (!list_member(slim_column_name_nodes(old_names),
								  makeString(lfirst(ln))))
				ereport(WARNING,
						(errcode(ERRCODE_UNDEFINED_COLUMN),
						 errmsg("slimheap.index_columns of \"%s\" names \"%s\", which is no column of it",
								get_rel_name(relid), (char *) lfirst(ln)),
						 errdetail("The name is left out of the option."),
						 errhint("Name columns as SQL spells them, separated by commas.")));
		}
		/* no name left (or none given): no entry, as after RESET */
		if (known != NIL)
			result = lappend(result, list_length(known) == list_length(names) ?
							 entry : slim_index_columns_entry(known));
	}
	return result;
}
