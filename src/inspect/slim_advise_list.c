/*-------------------------------------------------------------------------
 *
 * slim_advise_list.c
 *	  The tables slimheap.advise() reads, and the locks it takes on each
 *	  without ever waiting.
 *
 * The list comes from a scan of pg_class, not from a query: no operator,
 * function or type is looked up by name, so neither the caller's
 * search_path nor any object another role created can change what runs
 * here (docs/security.md).
 *
 * advise() promises never to wait for a lock (docs/inspect.md): a table
 * that someone holds locked, or one of whose indexes someone holds locked
 * (REINDEX, DROP INDEX, ALTER INDEX), is skipped with a NOTICE.  The
 * indexes matter because estimate() opens them to learn which columns are
 * indexed: once advise() holds their locks, those opens take them again
 * without waiting.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/inspect/slim_advise_list.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/catalog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"

#include "slim_inspect.h"

/* one table of the listing, with the names it is sorted by */
typedef struct SlimAdviseListed
{
	Oid			relid;
	NameData	nspname;
	NameData	relname;
} SlimAdviseListed;

/* by schema, then table name, bytewise (name's collation is "C") */
static int
slim_advise_listed_cmp(const void *pa, const void *pb)
{
	const SlimAdviseListed *a = (const SlimAdviseListed *) pa;
	const SlimAdviseListed *b = (const SlimAdviseListed *) pb;
	int			c = strcmp(NameStr(a->nspname), NameStr(b->nspname));

	return c != 0 ? c : strcmp(NameStr(a->relname), NameStr(b->relname));
}

/*
 * Is namespace nsp one whose tables advise() looks at?  Not the catalogs,
 * TOAST schemas or other sessions' temporary schemas; when schemas is not
 * NULL, only the schemas it names (NULL elements name none).
 */
static bool
slim_advise_schema_wanted(Oid nsp, const char *nspname,
						  Datum *schemas, bool *schema_nulls, int nschemas,
						  bool all_schemas)
{
	int			i;

	if (IsCatalogNamespace(nsp) || IsToastNamespace(nsp) ||
		isOtherTempNamespace(nsp) ||
		strcmp(nspname, "information_schema") == 0)
		return false;
	if (all_schemas)
		return true;
	for (i = 0; i < nschemas; i++)
	{
		if (!schema_nulls[i] &&
			strcmp(NameStr(*DatumGetName(schemas[i])), nspname) == 0)
			return true;
	}
	return false;
}

/*
 * The tables and materialized views of the current database advise() may
 * look at, in the order it reads them.  A scan of pg_class, not a query:
 * no operator or function is looked up by name, so no search_path and no
 * object of any schema can change what runs here (docs/security.md).
 */
Oid *
slim_advise_list_tables(Datum schemas_arg, bool all_schemas, int *ntables)
{
	Datum	   *schemas = NULL;
	bool	   *schema_nulls = NULL;
	int			nschemas = 0;
	SlimAdviseListed *listed;
	int			nlisted = 0;
	int			allocated = 64;
	Relation	pg_class;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid		   *relids;
	int			i;

	if (!all_schemas)
		deconstruct_array(DatumGetArrayTypeP(schemas_arg), NAMEOID,
						  NAMEDATALEN, false, TYPALIGN_CHAR,
						  &schemas, &schema_nulls, &nschemas);

	listed = palloc(allocated * sizeof(SlimAdviseListed));
	pg_class = table_open(RelationRelationId, AccessShareLock);
	scan = systable_beginscan(pg_class, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Form_pg_class form = (Form_pg_class) GETSTRUCT(tuple);
		char	   *nspname;

		if (form->relkind != RELKIND_RELATION &&
			form->relkind != RELKIND_MATVIEW)
			continue;
		nspname = get_namespace_name(form->relnamespace);
		if (nspname == NULL ||
			!slim_advise_schema_wanted(form->relnamespace, nspname, schemas,
									   schema_nulls, nschemas, all_schemas))
			continue;
		if (nlisted == allocated)
		{
			allocated *= 2;
			listed = repalloc(listed, allocated * sizeof(SlimAdviseListed));
		}
		listed[nlisted].relid = form->oid;
		namestrcpy(&listed[nlisted].nspname, nspname);
		listed[nlisted].relname = form->relname;
		nlisted++;
	}
	systable_endscan(scan);
	table_close(pg_class, AccessShareLock);

	qsort(listed, nlisted, sizeof(SlimAdviseListed), slim_advise_listed_cmp);
	relids = palloc(Max(nlisted, 1) * sizeof(Oid));
	for (i = 0; i < nlisted; i++)
		relids[i] = listed[i].relid;
	pfree(listed);
	*ntables = nlisted;
	return relids;
}

/* release what slim_advise_lock() took (relid InvalidOid: the indexes only) */
void
slim_advise_unlock(Oid relid, List *indexes)
{
	ListCell   *lc;

	foreach(lc, indexes)
		UnlockRelationOid(lfirst_oid(lc), AccessShareLock);
	list_free(indexes);
	if (OidIsValid(relid))
		UnlockRelationOid(relid, AccessShareLock);
}

/*
 * Lock the indexes of table relid, whose own lock the caller holds, each
 * only if that can be done at once.  Returns the list of the locked
 * indexes' OIDs, or false with no index left locked (and a NOTICE naming
 * the index) when one of them is held by someone else.
 */
static bool
slim_advise_lock_indexes(Oid relid, List **locked)
{
	Relation	rel = try_relation_open(relid, NoLock);
	List	   *indexes;
	ListCell   *lc;

	*locked = NIL;
	if (rel == NULL)
		return true;			/* dropped: the read finds out */
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		Oid			indexid = lfirst_oid(lc);

		if (!ConditionalLockRelationOid(indexid, AccessShareLock))
		{
			char	   *index_name = get_rel_name(indexid);

			ereport(NOTICE,
					(errmsg("slimheap.advise() skips \"%s\": its index \"%s\" is locked",
							RelationGetRelationName(rel),
							index_name ? index_name : "?"),
					 errhint("Run slimheap.estimate() on it later.")));
			slim_advise_unlock(InvalidOid, *locked);
			*locked = NIL;
			relation_close(rel, NoLock);
			list_free(indexes);
			return false;
		}
		*locked = lappend_oid(*locked, indexid);
	}
	relation_close(rel, NoLock);
	list_free(indexes);
	return true;
}

/*
 * Lock table relid and its indexes for advise()'s read, without waiting.
 * Returns false, with a NOTICE and nothing left locked, when any of them is
 * held by someone else; otherwise *indexes lists the indexes locked, for
 * slim_advise_unlock().
 */
bool
slim_advise_lock(Oid relid, List **indexes)
{
	*indexes = NIL;
	if (!ConditionalLockRelationOid(relid, AccessShareLock))
	{
		char	   *name = get_rel_name(relid);

		ereport(NOTICE,
				(errmsg("slimheap.advise() skips \"%s\": it is locked",
						name ? name : "?"),
				 errhint("Run slimheap.estimate() on it later.")));
		return false;
	}
	if (!slim_advise_lock_indexes(relid, indexes))
	{
		UnlockRelationOid(relid, AccessShareLock);
		return false;
	}
	return true;
}
