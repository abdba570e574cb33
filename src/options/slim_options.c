/*-------------------------------------------------------------------------
 *
 * slim_options.c
 *	  The slimheap.* per-table options: which exist, which values they take,
 *	  how a statement spells them and how pg_class.reloptions stores them.
 *
 * PostgreSQL 15 to 18 give table access methods no reloptions callback, so
 * core cannot validate these options; slim_options_ddl.c takes them out of
 * the DDL statements and stores them itself, using the functions below.
 *
 * In pg_class.reloptions an option is the text "slimheap.<name>=<value>"
 * (an "entry"), next to core's own "fillfactor=80" and the like, so \d+
 * shows it and pg_dump dumps it.  Values are stored in their canonical
 * (lower case) spelling.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/options/slim_options.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/syscache.h"

#include "slim_compat.h"
#include "slim_options.h"

/* "slimheap." */
#define SLIM_OPTION_PREFIX		SLIM_OPTION_NAMESPACE "."
#define SLIM_OPTION_PREFIX_LEN	(sizeof(SLIM_OPTION_PREFIX) - 1)

/*
 * One value an option accepts.
 */
typedef struct SlimOptionValue
{
	const char *name;			/* canonical spelling, as stored */
	int			value;
} SlimOptionValue;

/*
 * One option: its name (after "slimheap."), the values it accepts, and how a
 * parsed value lands in SlimOptions.
 */
typedef struct SlimOptionDef
{
	const char *name;
	const SlimOptionValue *values;	/* terminated by a NULL name; NULL for
									 * an integer option */
	int			min_value;		/* an integer option's range */
	int			max_value;
	void		(*assign) (SlimOptions *opts, int value);
	bool		is_columns;		/* a list of column names
								 * (slim_options_columns.c) */
} SlimOptionDef;

/*
 * slimheap.null_bitmap: how the NULL bitmap of a new row is written.  A new
 * form is one more line here (and one more SlimNullBitmap member).
 */
static const SlimOptionValue slim_null_bitmap_values[] = {
	{"full", SLIM_NULL_BITMAP_FULL},
	{"truncate", SLIM_NULL_BITMAP_TRUNCATE},
	{"compress", SLIM_NULL_BITMAP_COMPRESS},
	{NULL, 0}
};

static void
slim_assign_null_bitmap(SlimOptions *opts, int value)
{
	opts->null_bitmap = (SlimNullBitmap) value;
}

/*
 * slimheap.prefix_columns: compress rows keep at least this many leading
 * columns in their standard prefix (docs/format.md, invariant C1).
 */
static void
slim_assign_prefix_columns(SlimOptions *opts, int value)
{
	opts->prefix_columns = value;
}

/*
 * slimheap.index_columns: the columns the table's indexes read, kept where
 * pg_dump writes the table (the access method reads it, not SlimOptions).
 */
static void
slim_assign_nothing(SlimOptions *opts, int value)
{
}

static const SlimOptionDef slim_option_defs[] = {
	{"null_bitmap", slim_null_bitmap_values, 0, 0, slim_assign_null_bitmap},
	{"prefix_columns", NULL, 0, MaxHeapAttributeNumber,
	slim_assign_prefix_columns},
	{"index_columns", NULL, 0, 0, slim_assign_nothing, true},
};

#define SLIM_NUM_OPTIONS	lengthof(slim_option_defs)

static void
slim_default_options(SlimOptions *opts)
{
	opts->null_bitmap = SLIM_NULL_BITMAP_DEFAULT;
	opts->prefix_columns = 0;
}

static const SlimOptionDef *
slim_find_option(const char *name, size_t len)
{
	int			i;

	for (i = 0; i < SLIM_NUM_OPTIONS; i++)
	{
		if (strlen(slim_option_defs[i].name) == len &&
			strncmp(slim_option_defs[i].name, name, len) == 0)
			return &slim_option_defs[i];
	}
	return NULL;
}

/*
 * The value of option def called spelled, case-insensitively as core's enum
 * reloptions are, or an integer in range for an integer option: true with
 * *value and its canonical spelling (palloc'd or static), else false.
 */
static bool
slim_find_value(const SlimOptionDef *def, const char *spelled, int *value,
				const char **canonical)
{
	const SlimOptionValue *v;

	if (def->is_columns)
	{
		*value = 0;
		*canonical = slim_columns_canonical(spelled);
		return *canonical != NULL;
	}
	if (def->values == NULL)
	{
		char	   *end;
		long		parsed;

		/* digits only, as core's integer reloptions take them */
		errno = 0;
		parsed = strtol(spelled, &end, 10);
		if (end == spelled || *end != '\0' || errno != 0 ||
			parsed < def->min_value || parsed > def->max_value)
			return false;
		*value = (int) parsed;
		*canonical = psprintf("%d", *value);
		return true;
	}
	for (v = def->values; v->name != NULL; v++)
	{
		if (pg_strcasecmp(v->name, spelled) == 0)
		{
			*value = v->value;
			*canonical = v->name;
			return true;
		}
	}
	return false;
}

/* "a", "a" and "b", "a", "b", and "c" (for error details) */
static char *
slim_quoted_list(const char *const *names, int n)
{
	StringInfoData buf;
	int			i;

	initStringInfo(&buf);
	for (i = 0; i < n; i++)
	{
		if (i > 0)
			appendStringInfoString(&buf, n > 2 ? ", " : " ");
		if (i > 0 && i == n - 1)
			appendStringInfoString(&buf, "and ");
		appendStringInfo(&buf, "\"%s\"", names[i]);
	}
	return buf.data;
}

static char *
slim_valid_values(const SlimOptionDef *def)
{
	const char *names[16];
	int			n = 0;
	const SlimOptionValue *v;

	if (def->is_columns)
		return pstrdup("column names separated by commas");
	if (def->values == NULL)
		return psprintf("integers from %d to %d", def->min_value,
						def->max_value);
	for (v = def->values; v->name != NULL && n < lengthof(names); v++)
		names[n++] = v->name;
	return slim_quoted_list(names, n);
}

static char *
slim_valid_options(void)
{
	const char *names[SLIM_NUM_OPTIONS];
	int			i;

	for (i = 0; i < SLIM_NUM_OPTIONS; i++)
		names[i] = slim_option_defs[i].name;
	return slim_quoted_list(names, SLIM_NUM_OPTIONS);
}

/*
 * The option name of def without its namespace, when def is a slimheap
 * option: either the namespace form (slimheap.null_bitmap, parsed as
 * namespace "slimheap" and name "null_bitmap") or pg_dump's single quoted
 * name ("slimheap.null_bitmap").  NULL for every other option.
 */
static const char *
slim_option_name(const DefElem *def)
{
	if (def->defnamespace != NULL)
		return strcmp(def->defnamespace, SLIM_OPTION_NAMESPACE) == 0 ?
			def->defname : NULL;
	if (strncmp(def->defname, SLIM_OPTION_PREFIX, SLIM_OPTION_PREFIX_LEN) == 0)
		return def->defname + SLIM_OPTION_PREFIX_LEN;
	return NULL;
}

static bool
slim_is_option(const DefElem *def)
{
	return slim_option_name(def) != NULL;
}

bool
slim_list_has_option(const List *defs)
{
	ListCell   *lc;

	foreach(lc, defs)
	{
		if (slim_is_option(lfirst_node(DefElem, lc)))
			return true;
	}
	return false;
}

/*
 * Split a WITH / SET / RESET list into the slimheap options (returned) and
 * the others (*others).  The input list is left alone.
 */
List *
slim_split_options(const List *defs, List **others)
{
	List	   *ours = NIL;
	ListCell   *lc;

	*others = NIL;
	foreach(lc, defs)
	{
		DefElem    *def = lfirst_node(DefElem, lc);

		if (slim_is_option(def))
			ours = lappend(ours, def);
		else
			*others = lappend(*others, def);
	}
	return ours;
}

/*
 * Check one slimheap option of a statement and return its entry: the
 * "slimheap.<name>=<value>" text to store, or "slimheap.<name>" for RESET.
 * Errors out on anything that could not be stored.
 */
static char *
slim_option_entry(const DefElem *def, bool is_reset)
{
	const char *name = slim_option_name(def);
	const SlimOptionDef *option;
	const char *spelled;
	const char *canonical;
	int			value;

	Assert(name != NULL);
	option = slim_find_option(name, strlen(name));
	if (option == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unrecognized slimheap option \"%s\"", name),
				 errdetail("Valid slimheap options are %s.",
						   slim_valid_options())));

	if (is_reset)
	{
		/* the same rule, and message, as core's RESET */
		if (def->arg != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_SYNTAX_ERROR),
					 errmsg("RESET must not include values for parameters")));
		return psprintf(SLIM_OPTION_PREFIX "%s", option->name);
	}

	/*
	 * A bare name means "true" for core's options; no slimheap option is a
	 * boolean, so it names no value at all, which is what to say.
	 */
	if (def->arg == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("slimheap option \"%s\" requires a value", option->name),
				 errdetail("Valid values are %s.", slim_valid_values(option)),
				 errhint("Write it as %s%s = <value>.", SLIM_OPTION_PREFIX,
						 option->name)));
	spelled = defGetString((DefElem *) def);
	if (!slim_find_value(option, spelled, &value, &canonical))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for slimheap option \"%s\": \"%s\"",
						option->name, spelled),
				 errdetail("Valid values are %s.", slim_valid_values(option))));

	return psprintf(SLIM_OPTION_PREFIX "%s=%s", option->name, canonical);
}

/*
 * Whether tail rows inserted while logical decoding is on are logged for
 * it (slimheap's WAL resource manager is registered: the library was
 * preloaded); set by _PG_init().
 */
bool		slim_options_tails_decoded = false;

/*
 * Invariant C3 (docs/format.md): when slimheap cannot log tails for
 * logical decoding, say so when compress is set, not never.  Called for
 * entries that a statement does store (slim_options_pending.c and
 * slim_options_ddl.c), so that a CREATE ... IF NOT EXISTS that creates
 * nothing says nothing.
 */
void
slim_warn_entries(const List *entries)
{
	ListCell   *lc;

	if (!XLogLogicalInfoActive() || slim_options_tails_decoded)
		return;
	foreach(lc, entries)
	{
		if (strcmp(lfirst(lc), SLIM_OPTION_PREFIX "null_bitmap=compress") == 0)
			ereport(WARNING,
					(errmsg("slimheap.null_bitmap = compress stores no compressed tails while " SLIM_LOGICAL_WAL_PHRASE),
					 errdetail("slimheap is not in shared_preload_libraries, so rows written now are stored in the truncate form for logical decoding; CLUSTER and VACUUM FULL, which are never decoded, store tails."),
					 errhint("Load slimheap through shared_preload_libraries: inserted rows then keep their tails under logical decoding.")));
	}
}

/* length of the "slimheap.<name>" part of an entry */
static size_t
slim_entry_name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq != NULL ? (size_t) (eq - entry) : strlen(entry);
}

static bool
slim_entry_same_option(const char *a, const char *b)
{
	size_t		len = slim_entry_name_len(a);

	return len == slim_entry_name_len(b) && strncmp(a, b, len) == 0;
}

/*
 * The entries of the slimheap options of one WITH, SET or RESET list, in
 * their order.  Like core, one list may not set an option twice.
 */
List *
slim_option_entries(const List *defs, bool is_reset)
{
	List	   *entries = NIL;
	ListCell   *lc;

	foreach(lc, defs)
	{
		DefElem    *def = lfirst_node(DefElem, lc);
		char	   *entry;
		ListCell   *prev;

		if (!slim_is_option(def))
			continue;
		entry = slim_option_entry(def, is_reset);
		foreach(prev, entries)
		{
			if (!is_reset && slim_entry_same_option(lfirst(prev), entry))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("parameter \"%.*s\" specified more than once",
								(int) slim_entry_name_len(entry), entry)));
		}
		entries = lappend(entries, entry);
	}
	return entries;
}

/*
 * Apply one SET or RESET entry to a list of stored entries, the way core
 * applies its own: the option's old entry goes, a SET appends the new one.
 */
List *
slim_apply_entry(List *entries, const char *entry, bool is_reset)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, entries)
	{
		if (!slim_entry_same_option(lfirst(lc), entry))
			result = lappend(result, lfirst(lc));
	}
	if (!is_reset)
		result = lappend(result, pstrdup(entry));
	return result;
}

static bool
slim_is_entry(const char *item)
{
	return strncmp(item, SLIM_OPTION_PREFIX, SLIM_OPTION_PREFIX_LEN) == 0;
}

/*
 * Split a pg_class.reloptions array ((Datum) 0 for NULL) into the slimheap
 * entries and the other items, as palloc'd C strings in array order.  Either
 * output pointer may be NULL.
 */
static void
slim_split_reloptions(Datum reloptions, List **entries, List **others)
{
	Datum	   *elems;
	int			nelems;
	int			i;

	if (entries != NULL)
		*entries = NIL;
	if (others != NULL)
		*others = NIL;
	if (reloptions == (Datum) 0)
		return;

	deconstruct_array(DatumGetArrayTypeP(reloptions), TEXTOID, -1, false,
					  TYPALIGN_INT, &elems, NULL, &nelems);
	for (i = 0; i < nelems; i++)
	{
		char	   *item = TextDatumGetCString(elems[i]);
		List	  **target = slim_is_entry(item) ? entries : others;

		if (target != NULL)
			*target = lappend(*target, item);
		else
			pfree(item);
	}
}

/*
 * Read pg_class.reloptions of relation relid, split as slim_split_reloptions()
 * does: the one reader of stored slimheap options (the relcache keeps only
 * what core parses of them, into rd_options).  A relation whose pg_class row
 * is not visible yet (being created in this command) has no options.
 */
void
slim_read_reloptions(Oid relid, List **entries, List **others)
{
	HeapTuple	tuple;
	Datum		datum;
	bool		isnull;

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
	{
		slim_split_reloptions((Datum) 0, entries, others);
		return;
	}
	datum = SysCacheGetAttr(RELOID, tuple, Anum_pg_class_reloptions, &isnull);
	slim_split_reloptions(isnull ? (Datum) 0 : datum, entries, others);
	ReleaseSysCache(tuple);
}

/*
 * The pg_class.reloptions value holding entries followed by others, or
 * (Datum) 0 (NULL) when both are empty.  Our entries come first, so \d+ and
 * pg_dump show them in a stable place whatever core does with its own.
 */
Datum
slim_build_reloptions(const List *entries, const List *others)
{
	int			n = list_length(entries) + list_length(others);
	Datum	   *elems;
	int			i = 0;
	ListCell   *lc;

	if (n == 0)
		return (Datum) 0;

	elems = palloc(n * sizeof(Datum));
	foreach(lc, entries)
		elems[i++] = CStringGetTextDatum(lfirst(lc));
	foreach(lc, others)
		elems[i++] = CStringGetTextDatum(lfirst(lc));

	return PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false,
										   TYPALIGN_INT));
}

/*
 * Fill opts from the stored options of relation relid, or with the defaults
 * for those it has none of.  Called once per relcache entry (slim_relinfo.c).
 * The values were checked when they were stored; an entry this build does
 * not know (a value of a later version, say) leaves the option at its
 * default, which writes rows every version reads.
 */
void
slim_read_options(Oid relid, SlimOptions *opts)
{
	List	   *entries;
	ListCell   *lc;

	slim_default_options(opts);
	slim_read_reloptions(relid, &entries, NULL);

	foreach(lc, entries)
	{
		const char *entry = lfirst(lc);
		const char *name = entry + SLIM_OPTION_PREFIX_LEN;
		const char *eq = strchr(name, '=');
		const SlimOptionDef *option;
		const char *canonical;
		int			value;

		if (eq == NULL)
			continue;
		option = slim_find_option(name, eq - name);
		if (option == NULL)
			continue;
		if (slim_find_value(option, eq + 1, &value, &canonical))
			option->assign(opts, value);
	}
	list_free_deep(entries);
}
