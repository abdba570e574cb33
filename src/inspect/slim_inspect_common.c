/*-------------------------------------------------------------------------
 *
 * slim_inspect_common.c
 *	  What the SQL functions of the extension share: opening the relation
 *	  they are given (by OID: a regclass argument may name a relation that
 *	  does not exist, or no longer does), reading its pages, and the helpers
 *	  of their output.
 *
 * stats() and estimate() show totals only and are for superusers and
 * members of pg_stat_scan_tables, as pgstattuple's functions are.
 * page_items() and verify() show facts about single rows, whatever the
 * table's privileges and row security policies allow, so they are for
 * superusers, as pageinspect's functions are.  The SQL script revokes
 * EXECUTE from PUBLIC.
 *
 * stats() and estimate() read shared buffers, and a page may be damaged: a
 * row is deformed only after verify()'s checks of its header and values,
 * and no buffer lock is held while anything else runs, not even a relcache
 * build (which may wait for a lock).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/inspect/slim_inspect_common.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/relation.h"
#include "access/tableam.h"
#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "slimheap.h"
#include "slim_inspect.h"
#include "slim_page_check.h"
#include "slim_verify.h"

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
	slim_inspect_check_recovery(rel);

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
	if (rel->rd_tableam != slim_heap_routine)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot estimate \"%s\": its access method %s does not store heap tuples",
						RelationGetRelationName(rel),
						get_am_name(rel->rd_rel->relam)),
				 errdetail("slimheap.estimate() reads tables of the heap and slimheap access methods.")));

	return rel;
}

/*
 * The functions that show facts about single rows (page_items(), verify())
 * follow pageinspect's rule: superusers only.  Checked before the relation
 * is opened, so that others do not even learn whether it exists.
 */
void
slim_inspect_require_superuser(const char *funcname)
{
	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be superuser to use slimheap.%s()", funcname),
				 errdetail("slimheap.%s() shows facts about single rows, whatever the table's privileges and row security policies allow.",
						   funcname),
				 errhint("slimheap.stats() and slimheap.estimate() show totals to members of pg_stat_scan_tables.")));
}

/*
 * An unlogged relation has only its init fork on a hot standby: give the
 * error the planner gives for it (get_relation_info()), not "could not open
 * file".
 */
void
slim_inspect_check_recovery(Relation rel)
{
	if (!RelationIsPermanent(rel) && RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary or unlogged relations during recovery")));
}

/*
 * Read block blkno of rel into page: copy it under a share lock, and decide
 * under that lock which rows the snapshot sees (the check may set hint bits
 * on the shared page).  Only bounds checks and visibility run under the
 * lock, never anything that can wait for another session: a writer waiting
 * for the buffer is invisible to the deadlock detector and cannot be
 * cancelled.
 */
void
slim_inspect_read_page(Relation rel, BlockNumber blkno,
					   BufferAccessStrategy strategy, Snapshot snapshot,
					   SlimInspectPage *page)
{
	Buffer		buf;
	Page		shared;
	OffsetNumber off;

	buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL, strategy);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	shared = BufferGetPage(buf);
	memcpy(page->copy.data, shared, BLCKSZ);
	page->blkno = blkno;
	page->is_new = PageIsNew(shared);
	page->maxoff = page->is_new ? InvalidOffsetNumber :
		PageGetMaxOffsetNumber(shared);

	if (page->maxoff > MaxHeapTuplesPerPage)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("page %u of relation \"%s\" is corrupted",
						blkno, RelationGetRelationName(rel)),
				 errdetail("It has %u line pointers, more than a heap page can hold (%d).",
						   page->maxoff, (int) MaxHeapTuplesPerPage),
				 errhint("slimheap.verify() checks the table.")));

	for (off = FirstOffsetNumber; off <= page->maxoff; off++)
	{
		ItemId		itemid = PageGetItemId(shared, off);
		SlimItemProblem problem;
		HeapTupleData tuple;

		page->items[off] = SLIM_ITEM_NO_ROW;
		if (!ItemIdIsNormal(itemid))
			continue;

		/* the visibility check reads the header: it must lie in the page */
		problem = slim_check_item_bounds(itemid, SizeOfPageHeaderData, BLCKSZ);
		if (problem != SLIM_ITEM_SOUND)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("line pointer (%u,%u) of relation \"%s\" is corrupted",
							blkno, off, RelationGetRelationName(rel)),
					 errdetail("lp_off %u, lp_len %u: %s.",
							   ItemIdGetOffset(itemid), ItemIdGetLength(itemid),
							   slim_item_problem_text(problem)),
					 errhint("slimheap.page_items() shows the page.")));

		tuple.t_data = (HeapTupleHeader) PageGetItem(shared, itemid);
		tuple.t_len = ItemIdGetLength(itemid);
		tuple.t_tableOid = RelationGetRelid(rel);
		ItemPointerSet(&tuple.t_self, blkno, off);
		page->items[off] = HeapTupleSatisfiesVisibility(&tuple, snapshot, buf) ?
			SLIM_ITEM_LIVE : SLIM_ITEM_DEAD;
	}
	UnlockReleaseBuffer(buf);
}

/*
 * The tuple of item off of a page read by slim_inspect_read_page(), in the
 * page's copy, once it passed verify()'s checks (header, every value, the
 * compressed tail): only then may it be deformed.  A damaged row is an
 * error that names it.
 */
HeapTupleHeader
slim_inspect_row(SlimVerifyState *checker, SlimInspectPage *page, OffsetNumber off,
				 Size *len)
{
	ItemId		itemid = PageGetItemId(page->copy.data, off);
	HeapTupleHeader td = (HeapTupleHeader) PageGetItem(page->copy.data, itemid);
	const char *problem;

	Assert(page->items[off] != SLIM_ITEM_NO_ROW);
	*len = ItemIdGetLength(itemid);
	problem = slim_verify_tuple(checker, td, *len);
	if (problem != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("row (%u,%u) of relation \"%s\" is corrupted",
						page->blkno, off,
						RelationGetRelationName(checker->rel)),
				 errdetail("slimheap.verify() reports: %s.", problem),
				 errhint("slimheap.page_items() shows the page; slimheap.verify() checks the table.")));
	return td;
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

/*
 * The relation argument argno of slimheap.funcname(): never NULL.  A NULL
 * there comes from to_regclass() of a name that does not exist more often
 * than not, and a row of NULLs, or no row, would hide that.
 */
Oid
slim_inspect_relid_arg(FunctionCallInfo fcinfo, int argno, const char *funcname)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the relation of slimheap.%s() must not be null",
						funcname),
				 errhint("to_regclass() returns null for a name that does not exist; pass the name itself to be told which.")));
	return PG_GETARG_OID(argno);
}
