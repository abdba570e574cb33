/*-------------------------------------------------------------------------
 *
 * slim_index_guard.c
 *	  Refuse to build an index over a column that lies in the compressed
 *	  tail of a stored row.
 *
 * Index builds read rows through heap's code, which sees only a tail row's
 * standard prefix: a column past it would be indexed as NULL (invariant C1,
 * docs/format.md).  New rows keep every indexed column in the prefix once
 * the index is in the relcache; the rows already stored are checked here,
 * before the build reads them.  Only row headers are looked at.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/sysattr.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "optimizer/optimizer.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "slim_tail.h"
#include "slimheap.h"

/* the attributes an index reads: keys, INCLUDE, expressions, predicate */
static Bitmapset *
slim_index_attrs(IndexInfo *index_info)
{
	Bitmapset  *attrs = NULL;
	int			i;

	for (i = 0; i < index_info->ii_NumIndexAttrs; i++)
	{
		AttrNumber	attnum = index_info->ii_IndexAttrNumbers[i];

		if (attnum > 0)
			attrs = bms_add_member(attrs, attnum -
								   FirstLowInvalidHeapAttributeNumber);
	}
	pull_varattnos((Node *) index_info->ii_Expressions, 1, &attrs);
	pull_varattnos((Node *) index_info->ii_Predicate, 1, &attrs);
	return attrs;
}

/* the first attribute of attrs past prefix_natts (whole row: the next) */
static AttrNumber
slim_first_attr_past(Bitmapset *attrs, int prefix_natts)
{
	int			x = -1;

	if (bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs))
		return prefix_natts + 1;
	while ((x = bms_next_member(attrs, x)) >= 0)
	{
		if (x + FirstLowInvalidHeapAttributeNumber > prefix_natts)
			return x + FirstLowInvalidHeapAttributeNumber;
	}
	return InvalidAttrNumber;
}

/*
 * Check the rows of blocks [start, start + nblocks) of rel (all of them for
 * InvalidBlockNumber) that are not certainly dead: none may hold an
 * attribute the index reads in its tail.
 */
void
slim_check_index_prefix(Relation rel, IndexInfo *index_info,
						BlockNumber start, BlockNumber nblocks)
{
	Bitmapset  *attrs = slim_index_attrs(index_info);
	int			x = -1;
	int			last = 0;
	BlockNumber total = RelationGetNumberOfBlocks(rel);
	BlockNumber end;
	BlockNumber blkno;
	BufferAccessStrategy strategy;
	TransactionId oldest_xmin;

	while ((x = bms_next_member(attrs, x)) >= 0)
		last = Max(last, x + FirstLowInvalidHeapAttributeNumber);
	/* a whole-row reference (attribute 0) reads every column */
	if (bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs))
		last = RelationGetDescr(rel)->natts;
	if (last <= 0 || total == 0)
		return;

	end = (nblocks == InvalidBlockNumber || start + nblocks > total) ?
		total : start + nblocks;
	strategy = GetAccessStrategy(BAS_BULKREAD);
	oldest_xmin = GetOldestNonRemovableTransactionId(rel);

	for (blkno = start; blkno < end; blkno++)
	{
		Buffer		buffer;
		Page		page;
		OffsetNumber off;
		OffsetNumber maxoff;

		CHECK_FOR_INTERRUPTS();
		buffer = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
									strategy);
		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buffer);
		maxoff = PageIsNew(page) ? 0 : PageGetMaxOffsetNumber(page);

		for (off = FirstOffsetNumber; off <= maxoff; off++)
		{
			ItemId		lp = PageGetItemId(page, off);
			HeapTupleData tuple;
			int			prefix_natts;
			AttrNumber	attnum;

			if (!ItemIdIsNormal(lp))
				continue;
			tuple.t_data = (HeapTupleHeader) PageGetItem(page, lp);
			if (!SlimHeaderHasTail(tuple.t_data))
				continue;
			prefix_natts = HeapTupleHeaderGetNatts(tuple.t_data);
			if (prefix_natts >= last)
				continue;
			tuple.t_len = ItemIdGetLength(lp);
			tuple.t_tableOid = RelationGetRelid(rel);
			ItemPointerSet(&tuple.t_self, blkno, off);
			if (HeapTupleSatisfiesVacuum(&tuple, oldest_xmin, buffer) ==
				HEAPTUPLE_DEAD)
				continue;

			attnum = slim_first_attr_past(attrs, prefix_natts);
			UnlockReleaseBuffer(buffer);
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot index column \"%s\" of table \"%s\": it lies in the compressed tail of stored rows",
							get_attname(RelationGetRelid(rel), attnum, false),
							RelationGetRelationName(rel)),
					 errdetail("Row (%u,%u) keeps only its first %d columns in the standard prefix that indexes read.",
							   blkno, off, prefix_natts),
					 errhint("Keep the column in the prefix of every row, then create the index: ALTER TABLE %s SET (slimheap.prefix_columns = %d); VACUUM FULL %s;",
							 RelationGetRelationName(rel), last,
							 RelationGetRelationName(rel))));
		}
		UnlockReleaseBuffer(buffer);
	}
	FreeAccessStrategy(strategy);
	bms_free(attrs);
}
