/*-------------------------------------------------------------------------
 *
 * slim_relinfo.c
 *	  Per-relation facts the write paths need, cached in the relcache.
 *
 * The options and the T1 floor (see slimheap.h) are computed once per
 * relcache entry and kept in rd_amcache, which the relcache frees whenever
 * the entry is invalidated (ALTER TABLE, a change of options, ADD COLUMN ...
 * DEFAULT), so every backend picks up changes at its next use.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_attribute.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "slimheap.h"

/*
 * The highest attribute number of relation relid whose column has a missing
 * value, read from pg_attribute.
 */
static int
slim_catalog_missing_natts(Oid relid, int natts)
{
	int			attno;

	for (attno = natts; attno > 0; attno--)
	{
		HeapTuple	atttup;
		bool		found = false;

		atttup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relid),
								 Int16GetDatum(attno));
		if (!HeapTupleIsValid(atttup))
			continue;
		if (((Form_pg_attribute) GETSTRUCT(atttup))->atthasmissing)
		{
			bool		isnull;

			(void) SysCacheGetAttr(ATTNUM, atttup,
								   Anum_pg_attribute_attmissingval, &isnull);
			found = !isnull;
		}
		ReleaseSysCache(atttup);
		if (found)
			return attno;
	}
	return 0;
}

/*
 * Table rewrites (ALTER TABLE, CLUSTER, VACUUM FULL, SET ACCESS METHOD) write
 * into a transient relation that make_new_heap() names "pg_temp_<oid of the
 * table being rewritten>" and whose attributes carry no missing values.  Its
 * file becomes the old table's, and the indexes are rebuilt *before*
 * RelationClearMissing() drops the old table's missing values, so the
 * rewritten rows must honour the old table's fast defaults too.
 *
 * Keying on the name costs nothing for ordinary tables; a user table that
 * happens to be named like that only keeps a few more NULLs.
 */
static int
slim_rewrite_source_missing_natts(Relation rel)
{
	const char *relname = RelationGetRelationName(rel);
	char	   *end;
	unsigned long source;

	if (strncmp(relname, "pg_temp_", 8) != 0)
		return 0;
	source = strtoul(relname + 8, &end, 10);
	if (*end != '\0' || source == InvalidOid || source > PG_UINT32_MAX)
		return 0;
	return slim_catalog_missing_natts((Oid) source,
									  RelationGetDescr(rel)->natts);
}

/*
 * Read pg_class.reloptions of a relation (not kept in its relcache entry:
 * core parses only the options it knows into rd_options).
 */
static void
slim_read_options(Relation rel, SlimOptions *opts)
{
	HeapTuple	classtup;
	Datum		reloptions;
	bool		isnull;

	classtup = SearchSysCache1(RELOID, ObjectIdGetDatum(RelationGetRelid(rel)));
	if (!HeapTupleIsValid(classtup))
	{
		/* a relation being created in this command: no options yet */
		slim_parse_reloptions((Datum) 0, opts);
		return;
	}
	reloptions = SysCacheGetAttr(RELOID, classtup, Anum_pg_class_reloptions,
								 &isnull);
	slim_parse_reloptions(isnull ? (Datum) 0 : reloptions, opts);
	ReleaseSysCache(classtup);
}

const SlimRelInfo *
slim_get_relinfo(Relation rel)
{
	SlimRelInfo *info;
	SlimRelInfo local;

	if (rel->rd_amcache != NULL)
		return (const SlimRelInfo *) rel->rd_amcache;

	/* compute everything first: a syscache lookup may flush rd_amcache */
	slim_read_options(rel, &local.options);
	local.min_natts = Max(slim_missing_natts(RelationGetDescr(rel)),
						  slim_rewrite_source_missing_natts(rel));

	info = MemoryContextAlloc(CacheMemoryContext, sizeof(SlimRelInfo));
	*info = local;
	rel->rd_amcache = info;
	return info;
}
