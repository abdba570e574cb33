/*-------------------------------------------------------------------------
 *
 * slim_inspect_common.c
 *	  What the SQL functions of the extension share: opening the relation
 *	  they are given (by OID: a regclass argument may name a relation that
 *	  does not exist, or no longer does), and the helpers of their output.
 *
 * The functions are for superusers and members of pg_stat_scan_tables, as
 * pgstattuple's are: the SQL script revokes EXECUTE from PUBLIC.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/relation.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "slimheap.h"
#include "slim_inspect.h"

/*
 * Open relation relid, which comes from the caller as a bare OID (a regclass
 * argument is not checked: slimheap.verify(0), or the OID of a table dropped
 * since), with an error that says so instead of core's internal "could not
 * open relation".
 */
Relation
slim_open_relation_oid(Oid relid, LOCKMODE lockmode)
{
	Relation	rel = try_relation_open(relid, lockmode);

	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	return rel;
}

/*
 * Open a relation for inspection, with clear errors for relations that have
 * no rows of their own (views, indexes, sequences, partitioned tables ...),
 * for other sessions' temporary tables, and for access methods the function
 * cannot read.
 */
Relation
slim_inspect_open(Oid relid, const char *funcname, SlimInspectTarget target)
{
	Relation	rel = slim_open_relation_oid(relid, AccessShareLock);
	char		relkind = rel->rd_rel->relkind;

	if (relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("cannot inspect relation \"%s\" with slimheap.%s()",
						RelationGetRelationName(rel), funcname),
				 errdetail_relkind_not_supported(relkind),
				 relkind == RELKIND_PARTITIONED_TABLE ?
				 errhint("Inspect its partitions instead.") : 0));

	/* their pages live in the other session's local buffers */
	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary tables of other sessions")));

	if (slim_is_slimheap_relation(rel))
		return rel;

	if (target == SLIM_TARGET_SLIMHEAP)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a slimheap table",
						RelationGetRelationName(rel)),
				 errdetail("Its access method is %s.",
						   get_am_name(rel->rd_rel->relam)),
				 errhint("slimheap.estimate() shows what slimheap would save on it.")));

	/* estimate() reads rows through heap's slots and on-page tuples */
	if (rel->rd_tableam != GetHeapamTableAmRoutine())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot estimate \"%s\": its access method %s does not store heap tuples",
						RelationGetRelationName(rel),
						get_am_name(rel->rd_rel->relam)),
				 errdetail("slimheap.estimate() reads tables of the heap and slimheap access methods.")));

	return rel;
}

/*
 * 100 * part / whole as numeric rounded to two decimals; NULL (isnull set)
 * when whole is 0.
 */
Datum
slim_percent(int64 part, int64 whole, bool *isnull)
{
	Datum		ratio;

	*isnull = (whole == 0);
	if (*isnull)
		return (Datum) 0;

	ratio = DirectFunctionCall2(numeric_div,
								NumericGetDatum(int64_to_numeric(part)),
								NumericGetDatum(int64_to_numeric(whole)));
	ratio = DirectFunctionCall2(numeric_mul, ratio,
								NumericGetDatum(int64_to_numeric(100)));
	return DirectFunctionCall2(numeric_round, ratio, Int32GetDatum(2));
}

/*
 * The snapshot that decides which rows are live: the query's.
 */
Snapshot
slim_inspect_snapshot(void)
{
	return ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot();
}

