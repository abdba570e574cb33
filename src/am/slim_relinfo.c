/*-------------------------------------------------------------------------
 *
 * slim_relinfo.c
 *	  Per-relation facts the write paths need, cached in the relcache.
 *
 * The options, the T1 floor and the C1 prefix floor (see slimheap.h) are
 * computed once per relcache entry and kept in rd_amcache, which the
 * relcache frees whenever the entry is invalidated (ALTER TABLE, a change of
 * options, ADD COLUMN ... DEFAULT, CREATE INDEX, a change of replica
 * identity), so every backend picks up changes at its next use.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_relinfo.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "access/tupdesc_details.h"
#include "access/xlog.h"
#include "catalog/catalog.h"
#include "catalog/pg_class.h"
#include "nodes/bitmapset.h"
#include "storage/lmgr.h"
#include "storage/sinval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"

#include "slim_wal.h"
#include "slim_tail.h"
#include "slimheap.h"

/*
 * Table rewrites (ALTER TABLE, CLUSTER, VACUUM FULL, SET ACCESS METHOD,
 * REFRESH MATERIALIZED VIEW) write into a transient relation that
 * make_new_heap() names "pg_temp_<oid of the table being rewritten>" and
 * whose pg_class.relrewrite is that OID.  Returns that OID when rel is such
 * a relation, else InvalidOid: the name costs nothing to test for ordinary
 * tables, and relrewrite tells a user's table of that name from one.
 */
Oid
slim_rewrite_source_oid(Relation rel)
{
	const char *relname = RelationGetRelationName(rel);
	char	   *end;
	unsigned long source;

	if (strncmp(relname, "pg_temp_", 8) != 0)
		return InvalidOid;
	source = strtoul(relname + 8, &end, 10);
	if (*end != '\0' || source == InvalidOid || source > PG_UINT32_MAX ||
		rel->rd_rel->relrewrite != (Oid) source)
		return InvalidOid;
	return (Oid) source;
}

/*
 * The transient relation's attributes carry no missing values and it has no
 * indexes.  Its file becomes the old table's, and the indexes are rebuilt
 * *before* RelationClearMissing() drops the old table's missing values, so
 * the rewritten rows must honour the old table's fast defaults and indexes
 * too.  Returns the table being rewritten, opened, or NULL.
 *
 * pg_repack's copy (repack.table_<oid>, slim_options_repack.c) is such a
 * relation too, but its file is swapped in under the original's catalog
 * rows, which keep their missing values for good: *keeps_missing says so.
 */
static Relation
slim_rewrite_source(Relation rel, bool *keeps_missing)
{
	Oid			source = slim_rewrite_source_oid(rel);
	Relation	source_rel;

	*keeps_missing = false;
	if (!OidIsValid(source))
	{
		source = slim_repack_copy_source(rel);
		*keeps_missing = OidIsValid(source);
	}
	if (!OidIsValid(source))
		return NULL;

	/*
	 * A rewrite holds the old table locked; pg_repack's own sessions hold
	 * the original too, but a copy can be written by anyone (a leftover
	 * copy, slimheap.stats() on it), and the original's indexes are read
	 * below: lock it as any reader does, to the end of the transaction.
	 */
	if (*keeps_missing)
		LockRelationOid(source, AccessShareLock);
	source_rel = RelationIdGetRelation(source);
	return RelationIsValid(source_rel) ? source_rel : NULL;
}

/*
 * The attributes any index of rel reads (keys, INCLUDE columns,
 * expressions, predicates; the replica identity's are among them), offset
 * as pull_varattnos() offsets them; a copy.
 */
Bitmapset *
slim_index_attr_bitmap(Relation rel)
{
#if PG_VERSION_NUM >= 160000
	return bms_union(RelationGetIndexAttrBitmap(rel,
												INDEX_ATTR_BITMAP_HOT_BLOCKING),
					 RelationGetIndexAttrBitmap(rel,
												INDEX_ATTR_BITMAP_SUMMARIZED));
#else
	return RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_ALL);
#endif
}

/*
 * The last attribute any index of rel reads, or 0.  A whole-row reference
 * (attribute 0) reads every attribute.
 */
int
slim_index_natts(Relation rel)
{
	Bitmapset  *attrs = slim_index_attr_bitmap(rel);
	int			x = -1;
	int			last = 0;

	if (bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs))
		last = RelationGetDescr(rel)->natts;
	while ((x = bms_next_member(attrs, x)) >= 0)
		last = Max(last, x + FirstLowInvalidHeapAttributeNumber);
	bms_free(attrs);
	return last;
}

/* the attributes of attrs (offset as pull_varattnos offsets them) into need */
static int
slim_need_attnums(const Bitmapset *attrs, int16 *need, int n)
{
	int			x = -1;

	while ((x = bms_next_member(attrs, x)) >= 0)
	{
		if (x + FirstLowInvalidHeapAttributeNumber > 0)
			need[n++] = (int16) (x + FirstLowInvalidHeapAttributeNumber);
	}
	return n;
}

/*
 * The attributes of rel that its slimheap.index_columns names (the
 * columns its indexes read when it was dumped: slim_index_columns.c),
 * offset as pull_varattnos() offsets them; names of no column are left
 * out.
 */
static Bitmapset *
slim_index_columns_attrs(Relation rel)
{
	List	   *entries;
	List	   *names;
	Bitmapset  *attrs = NULL;
	ListCell   *lc;

	slim_read_reloptions(RelationGetRelid(rel), &entries, NULL);
	names = slim_index_columns_of(entries);
	foreach(lc, names)
	{
		AttrNumber	attnum = get_attnum(RelationGetRelid(rel), lfirst(lc));

		if (attnum > 0)
			attrs = bms_add_member(attrs,
								   attnum - FirstLowInvalidHeapAttributeNumber);
	}
	list_free(names);
	return attrs;
}

/*
 * The last attribute of attrs (what indexes read, offset as pull_varattnos
 * offsets them) whose column has a fast default that heap applies to rel's
 * rows: rel's own, or, for a rewrite's transient table or pg_repack's copy,
 * source's (docs/fast-defaults.md, revision 3, 5).  Every row keeps it in
 * its prefix, NULL or not: heap's readers of what an index reads would take
 * a NULL past the prefix for the default.
 */
static int
slim_need_missing_floor(Relation rel, Relation source, const Bitmapset *attrs)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			natts = desc->natts;
	int			floor = slim_missing_floor(desc);
	int			need_floor = 0;
	int			x = -1;

	if (source != NULL)
		floor = Max(floor, slim_missing_floor_upto(RelationGetDescr(source),
												   natts));
	while (floor > need_floor && (x = bms_next_member(attrs, x)) >= 0)
	{
		int			attnum = x + FirstLowInvalidHeapAttributeNumber;

		if (attnum <= need_floor || attnum > floor)
			continue;
		if (slim_missing_floor_upto(desc, attnum) == attnum ||
			(source != NULL &&
			 slim_missing_floor_upto(RelationGetDescr(source), attnum) == attnum))
			need_floor = attnum;
	}
	return need_floor;
}

/*
 * Invariant C1, rule R of docs/row-floor.md: the prefix floor of rel's
 * compress rows.  Every row keeps its first attributes up to the fast
 * defaults that an index reads (the others' NULLs a tail stores, from 1.4
 * on), slimheap.prefix_columns and the free ones (the floor's base),
 * and past them each attribute an index reads (the replica identity's
 * among them) in which it holds a value; no row may have a tail (base
 * natts) when decoded says rel's rows are logged for logical decoding
 * (C3), with REPLICA IDENTITY FULL (old rows logged whole), or with an
 * index on the whole row.  missing_floor is rel's T1 floor; source the
 * table a rewrite copies, or NULL; building, attributes an index being
 * built reads.  Also what slimheap.estimate() projects, for any table.
 */
const SlimFloor *
slim_compress_prefix_floor(Relation rel, Relation source,
						   const SlimOptions *opts, int missing_floor,
						   bool decoded, const Bitmapset *building)
{
	int			natts = RelationGetDescr(rel)->natts;
	Bitmapset  *attrs;
	int16	   *need;
	int			nneed;
	int			base;
	bool		ends_null;
	const SlimFloor *floor;

	if (decoded ||
		rel->rd_rel->relreplident == REPLICA_IDENTITY_FULL ||
		(source != NULL &&
		 source->rd_rel->relreplident == REPLICA_IDENTITY_FULL))
		return slim_floor_intern(natts, false, NULL, 0);

	attrs = bms_union(slim_index_attr_bitmap(rel), building);
	if (source != NULL)
		attrs = bms_join(attrs, slim_index_attr_bitmap(source));
	/* a tail may store the NULLs of the other fast-default columns */
	ends_null = slim_tail_may_end_with_nulls();
	base = ends_null ?
		slim_need_missing_floor(rel, source, attrs) : missing_floor;
	base = Max(base, opts->prefix_columns);
	base = Max(base, SLIM_FREE_PREFIX_NATTS);
	if (bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs))
		base = natts;
	base = Min(base, natts);

	need = palloc((bms_num_members(attrs) + 1) * sizeof(int16));
	nneed = slim_need_attnums(attrs, need, 0);
	floor = slim_floor_intern(base, ends_null, need, nneed);
	pfree(need);
	bms_free(attrs);
	return floor;
}

/*
 * The attributes the rows a rewrite copies from source into rel must keep
 * for source's fast defaults (invariant T1; the rule is slim_truncate.c's,
 * applied to the old table's descriptor).  Until RelationClearMissing() at
 * the end of the rewrite only the index rebuilds read the new rows
 * (finish_heap_swap()), so compress rows honour the old fast defaults only
 * of the columns an index reads (rule R', docs/row-floor.md): a fast
 * default on a column no index reads must not keep every row from a tail.
 * docs/format.md, "Rewrites".
 */
int
slim_rewrite_floor(Relation source, Relation rel, const SlimOptions *opts)
{
	TupleDesc	desc = RelationGetDescr(source);
	int			floor = slim_missing_floor_upto(desc,
												RelationGetDescr(rel)->natts);
	Bitmapset  *attrs;
	int			x = -1;
	int			need_floor = 0;

	if (opts->null_bitmap != SLIM_NULL_BITMAP_COMPRESS || floor == 0)
		return floor;
	attrs = bms_union(slim_index_attr_bitmap(source),
					  slim_index_attr_bitmap(rel));
	if (bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs))
		need_floor = floor;
	while ((x = bms_next_member(attrs, x)) >= 0)
	{
		int			attnum = x + FirstLowInvalidHeapAttributeNumber;

		if (attnum > need_floor && attnum <= floor &&
			desc->constr->missing[attnum - 1].am_present)
			need_floor = attnum;
	}
	bms_free(attrs);
	return need_floor;
}

/*
 * An index of a table whose plain build is under way in this backend, with
 * the last attribute it reads: until the build ends, the table's cached
 * index list lacks it (core invalidates the table's entry only once the
 * index is built), yet the rows the build stores again before its scan
 * (slim_index_build.c) must keep what it reads in their prefix.
 */
static Oid	slim_building_relid = InvalidOid;
static Bitmapset *slim_building_attrs = NULL;	/* in TopMemoryContext */

/* stop counting an index being built, wherever the cached facts are */
void
slim_relinfo_forget_building(void)
{
	bms_free(slim_building_attrs);
	slim_building_attrs = NULL;
	slim_building_relid = InvalidOid;
}

/*
 * Count (attrs not NULL) or stop counting (NULL) the attributes an index
 * being built reads (offset as pull_varattnos offsets them; attribute 0:
 * the whole row) in the prefix floor of rel, a compress table.  The
 * cached facts are formed again either way.
 */
void
slim_relinfo_set_building(Relation rel, const Bitmapset *attrs)
{
	if (rel->rd_amcache != NULL)
	{
		pfree(rel->rd_amcache);
		rel->rd_amcache = NULL;
	}
	slim_relinfo_forget_building();
	if (attrs != NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(TopMemoryContext);


		slim_building_attrs = bms_copy(attrs);
		MemoryContextSwitchTo(oldcxt);
		slim_building_relid = RelationGetRelid(rel);
	}
}

/*
 * The attributes an index being built on rel, or on the table a rewrite of
 * rel copies (source), reads; NULL if none.
 */
static const Bitmapset *
slim_relinfo_building(Relation rel, Relation source)
{
	if (!OidIsValid(slim_building_relid))
		return NULL;
	if (RelationGetRelid(rel) == slim_building_relid ||
		(source != NULL && RelationGetRelid(source) == slim_building_relid))
		return slim_building_attrs;
	return NULL;
}

/* the facts of rel as the catalog and the floor registry tell them now */
static void
slim_compute_relinfo(Relation rel, SlimRelInfo *out)
{
	SlimRelInfo local;
	Relation	source;
	bool		keeps_missing;

	slim_read_options(RelationGetRelid(rel), &local.options);
	local.narrow = RelationGetDescr(rel)->natts <= SLIM_NARROW_NATTS;
	local.full_rows = local.narrow ? SLIM_FULL_ROWS_UNKNOWN : SLIM_FULL_ROWS_NO;
	if (local.narrow)
		local.options.null_bitmap = SLIM_NULL_BITMAP_FULL;
	local.missing_floor = slim_missing_floor(RelationGetDescr(rel));
	source = slim_rewrite_source(rel, &keeps_missing);
	if (source != NULL && keeps_missing)
		local.missing_floor = Max(local.missing_floor,
							  slim_missing_floor_upto(RelationGetDescr(source),
													  RelationGetDescr(rel)->natts));
	else if (source != NULL)
		local.missing_floor = Max(local.missing_floor,
							  slim_rewrite_floor(source, rel, &local.options));
	local.no_tail_floor = slim_floor_intern(RelationGetDescr(rel)->natts,
											false, NULL, 0);
	local.rewrite_target = source != NULL && !keeps_missing;
	local.reads_values = rel->rd_rel->relhasindex ||
		rel->rd_rel->relhastriggers ||
		(RelationGetDescr(rel)->constr != NULL &&
		 (RelationGetDescr(rel)->constr->has_not_null ||
		  RelationGetDescr(rel)->constr->num_check > 0));
	if (local.options.null_bitmap == SLIM_NULL_BITMAP_COMPRESS)
	{
		/* an index being built here, or about to be built anywhere */
		Bitmapset  *building = slim_floor_registered(RelationGetRelid(rel));

		building = bms_add_members(building,
								   slim_relinfo_building(rel, source));
		/* and what its indexes read when it was dumped (a restore) */
		building = bms_join(building, slim_index_columns_attrs(rel));
		local.rewrite_prefix_floor =
			slim_compress_prefix_floor(rel, source, &local.options,
									   local.missing_floor, false,
									   building);
		bms_free(building);
		/* C3: slim_confirm_row() decides per write, when it can log tails */
		local.prefix_floor =
			RelationIsLogicallyLogged(rel) && !slim_wal_registered() ?
			local.no_tail_floor : local.rewrite_prefix_floor;
	}
	else
		local.prefix_floor = local.rewrite_prefix_floor = local.no_tail_floor;
	if (source != NULL)
		RelationClose(source);
	*out = local;
}

const SlimRelInfo *
slim_build_relinfo(Relation rel)
{
	SlimRelInfo *info;
	SlimRelInfo local;
	uint64		inval_count;

	/*
	 * Compute everything first: a syscache lookup may flush rd_amcache.
	 * And again if an invalidation arrived meanwhile (an index opened for
	 * the index list locks it, and locking reads the queue): it may be the
	 * one that announced a registration (slim_index_cic.c) read before
	 * it, and it would not come again to clear what is cached now.
	 */
	do
	{
		inval_count = SharedInvalidMessageCounter;
		slim_compute_relinfo(rel, &local);
	} while (inval_count != SharedInvalidMessageCounter);

	info = MemoryContextAlloc(CacheMemoryContext, sizeof(SlimRelInfo));
	*info = local;
	rel->rd_amcache = info;
	return info;
}

