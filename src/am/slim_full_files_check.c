/*-------------------------------------------------------------------------
 *
 * slim_full_files_check.c
 *	  slimheap.record_full_rows(): read every row of a narrow table's file
 *	  and, if none is short, record the file (slim_full_files.c).
 *
 * Files made before the record existed (tables of an older catalog or
 * library, a crash that emptied the unlogged record) hold rows of any
 * form.  Under SHARE ROW EXCLUSIVE lock no row is written while the pages
 * are read, so a file in which no stored row, live or dead, lacks an attribute
 * holds none when the record commits, and every later row is this
 * library's (the record counts only where it is preloaded).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_full_files_check.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/pg_class.h"
#include "commands/tablecmds.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "slim_compat.h"
#include "slim_heap_slot.h"
#include "slimheap.h"

PG_FUNCTION_INFO_V1(slimheap_record_full_rows);

/* how many rows stored in rel's file lack an attribute of its descriptor */
static int64
slim_count_short_rows(Relation rel)
{
	int			natts = RelationGetDescr(rel)->natts;
	BufferAccessStrategy strategy = GetAccessStrategy(BAS_BULKREAD);
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	BlockNumber blkno;
	int64		short_rows = 0;

	for (blkno = 0; blkno < nblocks; blkno++)
	{
		Buffer		buf;
		Page		page;
		OffsetNumber off;
		OffsetNumber maxoff;

		CHECK_FOR_INTERRUPTS();
		buf = ReadBufferExtended(rel, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 strategy);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		maxoff = PageGetMaxOffsetNumber(page);
		for (off = FirstOffsetNumber; off <= maxoff; off++)
		{
			ItemId		itemid = PageGetItemId(page, off);
			HeapTupleHeader td;

			if (!ItemIdIsNormal(itemid))
				continue;
			td = (HeapTupleHeader) PageGetItem(page, itemid);
			/* as the slot's check reads a row */
			if (!slim_header_is_full(td, natts))
				short_rows++;
		}
		UnlockReleaseBuffer(buf);
	}
	FreeAccessStrategy(strategy);
	return short_rows;
}

/* the checks of rel before its rows are read */
static void
slim_record_full_rows_checks(Relation rel)
{
	const char *name = RelationGetRelationName(rel);

	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_MATVIEW)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table or materialized view", name)));
	if (!slim_relation_ownercheck(RelationGetRelid(rel), GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER,
					   get_relkind_objtype(rel->rd_rel->relkind), name);
	if (!slim_is_slimheap_relation(rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("table \"%s\" does not use access method slimheap",
						name)));
	/* not from a statement that is reading or rewriting it */
	CheckTableNotInUse(rel, "record the full rows of");
	if (rel->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("temporary tables have no record of full rows"),
				 errdetail("Their files are numbered from the OIDs of every table, so no record is kept of them.")));
}

/*
 * slimheap.record_full_rows(rel): true when rel's file is now recorded as
 * one of full rows; false, with a NOTICE, when it holds short rows, or
 * when rel is wide (its scans use slimheap's slot, which has no check to
 * skip).
 */
Datum
slimheap_record_full_rows(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	char	   *name;
	Relation	rel;
	int64		short_rows;
	bool		recorded;

	PreventCommandIfReadOnly("slimheap.record_full_rows()");
	/* the owner only, asked before the lock: no one else may hold it */
	name = get_rel_name(relid);
	if (name == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (!slim_relation_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER,
					   get_relkind_objtype(get_rel_relkind(relid)), name);
	/* SHARE ROW EXCLUSIVE: no writer, and no other call on rel meanwhile */
	rel = try_relation_open(relid, ShareRowExclusiveLock);
	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	slim_record_full_rows_checks(rel);
	if (!slim_full_files_enabled())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("records of full rows need slimheap in shared_preload_libraries"),
				 errdetail("Without it, a session that loads an older library could store short rows into the table's file."),
				 errhint("Add slimheap to shared_preload_libraries and restart the server.")));
	if (RelationGetDescr(rel)->natts > SLIM_NARROW_NATTS)
	{
		ereport(NOTICE,
				(errmsg("table \"%s\" is not narrow: no record is kept of its file",
						RelationGetRelationName(rel)),
				 errdetail("It has %d attributes; only tables of at most %d use heap's slot, whose rows are checked.",
						   RelationGetDescr(rel)->natts, SLIM_NARROW_NATTS)));
		relation_close(rel, ShareRowExclusiveLock);
		PG_RETURN_BOOL(false);
	}

	short_rows = slim_count_short_rows(rel);
	recorded = short_rows == 0 && slim_full_files_record(rel);
	if (short_rows == 0 && !recorded)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("could not record the file of table \"%s\"",
						RelationGetRelationName(rel)),
				 errdetail("slimheap.full_row_files must be an unlogged heap table of a superuser whose only index is its primary key on relid, and the extension's version 1.4 committed.")));
	if (short_rows > 0)
		ereport(NOTICE,
				(errmsg_plural("table \"%s\" holds %lld row shorter than its %d attributes",
							   "table \"%s\" holds %lld rows shorter than its %d attributes",
							   short_rows,
							   RelationGetRelationName(rel),
							   (long long) short_rows,
							   RelationGetDescr(rel)->natts),
				 errhint("VACUUM FULL stores every row with all its attributes, and records the new file.")));
	if (recorded)
	{
		CacheInvalidateRelcache(rel);
		/* a second call in this statement updates the row, not a new one */
		CommandCounterIncrement();
	}
	relation_close(rel, NoLock);
	PG_RETURN_BOOL(recorded);
}
