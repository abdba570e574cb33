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

#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"

#include "slimheap.h"

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
	Relation	source_rel;
	int			floor;

	if (strncmp(relname, "pg_temp_", 8) != 0)
		return 0;
	source = strtoul(relname + 8, &end, 10);
	if (*end != '\0' || source == InvalidOid || source > PG_UINT32_MAX)
		return 0;

	/* the rule is slim_tuple.c's, applied to the old table's descriptor */
	source_rel = RelationIdGetRelation((Oid) source);
	if (!RelationIsValid(source_rel))
		return 0;
	floor = slim_missing_natts_upto(RelationGetDescr(source_rel),
									RelationGetDescr(rel)->natts);
	RelationClose(source_rel);
	return floor;
}

const SlimRelInfo *
slim_build_relinfo(Relation rel)
{
	SlimRelInfo *info;
	SlimRelInfo local;

	/* compute everything first: a syscache lookup may flush rd_amcache */
	slim_read_options(RelationGetRelid(rel), &local.options);
	local.min_natts = Max(slim_missing_natts(RelationGetDescr(rel)),
						  slim_rewrite_source_missing_natts(rel));

	info = MemoryContextAlloc(CacheMemoryContext, sizeof(SlimRelInfo));
	*info = local;
	rel->rd_amcache = info;
	return info;
}
