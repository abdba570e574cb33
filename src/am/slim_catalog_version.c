/*-------------------------------------------------------------------------
 *
 * slim_catalog_version.c
 *	  What the installed extension's version lets this library write.
 *
 * A compress row may end its tail with stored NULLs (the NULLs of columns
 * with a fast default, docs/fast-defaults.md) from extension version 1.4
 * on.  Libraries of 1.2 and earlier, and 1.3 builds from before its read
 * path refused it, would misread such a row (later 1.3 builds refuse it),
 * so the library writes it only once the database's catalog
 * says 1.4: `ALTER EXTENSION slimheap UPDATE` is the user's consent, given
 * after the library is upgraded on every server that reads the data (a
 * standby replays the rows, a logical decoder expands them).  Until then
 * the rows keep every fast-default column in their prefix, as 1.3 wrote
 * them.  A version this library does not know counts as an older one.
 *
 * The version is read when a relation's facts are computed
 * (slim_relinfo.c), and counts once committed; the update script makes
 * every backend compute them again after its commit
 * (slimheap_start_tail_form()), and a backend that has not done so
 * yet writes the older form, which 1.4 reads.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_catalog_version.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/rel.h"

#include "slim_wal.h"
#include "slimheap.h"

/* the catalog versions under which a tail may end with stored NULLs */
static const char *const slim_versions_with_trailing_nulls[] = {
	"1.4"
};

PG_FUNCTION_INFO_V1(slimheap_start_tail_form);

/* the installed version of extension extoid, palloc'd, or NULL */
static char *
slim_extension_version(Oid extoid)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tuple;
	char	   *version = NULL;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(extoid));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tuple = systable_getnext(scan);
	/*
	 * A version this transaction wrote (ALTER EXTENSION UPDATE, or CREATE
	 * EXTENSION) counts only once committed: facts computed before then
	 * may outlive a rollback to a savepoint (RelationCacheInvalidate()
	 * skips relations new in the transaction), so until the commit, whose
	 * invalidation every backend and this one reads, rows take the form an
	 * older catalog gives them.
	 */
	if (HeapTupleIsValid(tuple) &&
		!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data)))
	{
		bool		isnull;
		Datum		datum = heap_getattr(tuple, Anum_pg_extension_extversion,
										 RelationGetDescr(rel), &isnull);

		if (!isnull)
			version = text_to_cstring(DatumGetTextPP(datum));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return version;
}

/*
 * Whether rows written now may end a compressed tail with stored NULLs:
 * the catalog's slimheap is 1.4, committed (or there is no extension).
 */
bool
slim_tail_may_end_with_nulls(void)
{
	return slim_catalog_current();
}

/*
 * Is the catalog's slimheap 1.4, committed (or is there no extension)?
 * 1.4's update is the user's word that every server runs this library:
 * tails may end with stored NULLs, and records of full files
 * (slim_full_files.c) count.
 */
bool
slim_catalog_current(void)
{
	Oid			extoid = get_extension_oid("slimheap", true);
	char	   *version;
	bool		allowed = false;
	int			i;

	/*
	 * No extension: an access method made by hand, as bench/run.sh makes
	 * it to run a private copy of the library; no catalog says how old the
	 * readers are, so this library's form is written
	 */
	if (!OidIsValid(extoid))
		return true;
	version = slim_extension_version(extoid);
	if (version == NULL)
		return false;
	for (i = 0; i < lengthof(slim_versions_with_trailing_nulls); i++)
	{
		if (strcmp(version, slim_versions_with_trailing_nulls[i]) == 0)
			allowed = true;
	}
	pfree(version);
	return allowed;
}

/*
 * The call of the 1.3--1.4 script and of the 1.4 script, which make the
 * new tail form allowed: first the WAL's FORMAT record, then every
 * backend's cached facts of every relation go at the end of this
 * transaction (this backend's at once, and again should the transaction
 * roll back), so that each reads the catalog's version anew.
 */
Datum
slimheap_start_tail_form(PG_FUNCTION_ARGS)
{
	/*
	 * Before any row of the new form: a server that replays this WAL with
	 * an older library stops here (slim_wal_format.c)
	 */
	if (slim_wal_registered())
		slim_wal_log_format(SLIM_WAL_FORMAT);
	CacheInvalidateRelcacheAll();
	PG_RETURN_VOID();
}
