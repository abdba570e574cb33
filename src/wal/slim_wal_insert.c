/*-------------------------------------------------------------------------
 *
 * slim_wal_insert.c
 *	  The record of a row with a compressed tail inserted while logical
 *	  decoding is on, and the INSERT that logical decoding makes of it.
 *
 * Logical decoding reads the rows heap logs as heap rows: a tail row would
 * reach an output plugin with its prefix only (invariant C3).  So while
 * decoding is on, a tail row is inserted with HEAP_INSERT_NO_LOGICAL (heap's
 * record still restores the page; heap's decoder skips it) and this record
 * follows it in the same transaction, before anything else can: decoding
 * queues from it the change heap's decoder would have queued from heap's
 * record, with heap's full form of the row, so every output plugin
 * (test_decoding, pgoutput, ...) receives the row heap would send.  A crash
 * between the two records leaves a transaction that never commits; an
 * error between them aborts it.  Redo has nothing to do (slim_wal.c).
 *
 * The decoding steps are those of heap's own decoder for an insert
 * (decode.c: heap_decode(), DecodeInsert()); the full form is made by
 * slim_tail_expand_by_facts() from what the record carries, as no catalog
 * can be read there.  A TOAST value never reaches a tail (C2), so the
 * record is the whole row.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/wal/slim_wal_insert.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xlog.h"
#include "access/xloginsert.h"
#include "replication/reorderbuffer.h"
#include "replication/snapbuild.h"

#include "slim_compat.h"
#include "slim_tail.h"
#include "slim_wal.h"

/*
 * Log tail row tuple of rel, which heap_insert() has just stored with
 * HEAP_INSERT_NO_LOGICAL, for logical decoding.
 */
void
slim_wal_log_insert(Relation rel, HeapTuple tuple, bool speculative)
{
	HeapTupleHeader td = tuple->t_data;
	SlimInsertRecord rec;
	char	   *facts;
	uint32		prefix_end;

	Assert(SlimHeaderHasTail(td));
	facts = palloc(SLIM_TAIL_FACTS_MAX(RelationGetDescr(rel)->natts));
	rec.facts_len = (uint16) slim_tail_facts(td, RelationGetDescr(rel), facts,
											 &prefix_end);
	slim_rel_file(rel, rec.spc, rec.db, rec.relnumber);
	rec.prefix_end = (uint16) prefix_end;
	rec.t_infomask2 = td->t_infomask2;
	rec.t_infomask = td->t_infomask;
	rec.t_hoff = td->t_hoff;
	rec.flags = speculative ? SLIM_INSERT_SPECULATIVE : 0;

	XLogBeginInsert();
	XLogRegisterData((char *) &rec, SizeOfSlimInsertRecord);
	XLogRegisterData(facts, rec.facts_len);
	XLogRegisterData((char *) td + SizeofHeapTupleHeader,
					 tuple->t_len - SizeofHeapTupleHeader);
	/* as heap's insert: decoding may filter by replication origin */
	XLogSetRecordFlags(XLOG_INCLUDE_ORIGIN);
	(void) XLogInsert(SLIM_RMGR_ID, XLOG_SLIM_INSERT);
	pfree(facts);
}

/* where slim_tail_expand_by_facts() writes: the change's new tuple */
typedef struct SlimDecodeTarget
{
	ReorderBuffer *rb;
	ReorderBufferChange *change;
} SlimDecodeTarget;

static HeapTupleHeader
slim_decode_alloc(Size len, void *arg)
{
	SlimDecodeTarget *target = (SlimDecodeTarget *) arg;
	HeapTuple	tuple;

	tuple = slim_rb_alloc_newtuple(target->rb, target->change,
								   len - SizeofHeapTupleHeader);
	tuple->t_len = len;
	/* not a tuple on disk; the table is known only at commit (as heap's) */
	ItemPointerSetInvalid(&tuple->t_self);
	tuple->t_tableOid = InvalidOid;
	memset(tuple->t_data, 0, SizeofHeapTupleHeader);
	return tuple->t_data;
}

/*
 * The row the record carries, as stored: a header made from its fields and
 * the bytes after it, MAXALIGNed as a tuple must be.
 */
static HeapTupleHeader
slim_decode_stored_row(const SlimInsertRecord *rec, const char *row,
					   Size row_len)
{
	HeapTupleHeader td = palloc0(SizeofHeapTupleHeader + row_len);

	td->t_infomask2 = rec->t_infomask2;
	td->t_infomask = rec->t_infomask;
	td->t_hoff = rec->t_hoff;
	memcpy((char *) td + SizeofHeapTupleHeader, row, row_len);
	if (!SlimHeaderHasTail(td) || td->t_hoff < SizeofHeapTupleHeader ||
		td->t_hoff + (Size) rec->prefix_end > SizeofHeapTupleHeader + row_len)
		elog(ERROR, "slimheap: an insert record that holds no tail row");
	return td;
}

/*
 * rm_decode of XLOG_SLIM_INSERT, after the steps every record of a
 * transaction takes (slim_wal_decode()): the INSERT (or the speculative
 * insert, which heap's confirm or super-delete record completes) of the
 * row in heap's full form, unless it is another database's or the output
 * plugin filters its origin out.
 */
void
slim_wal_decode_insert(LogicalDecodingContext *ctx, XLogRecordBuffer *buf)
{
	XLogReaderState *r = buf->record;
	const char *data = XLogRecGetData(r);
	Size		len = XLogRecGetDataLen(r);
	SlimInsertRecord rec;
	SlimDecodeTarget target;
	HeapTupleHeader stored;

	if (len < SizeOfSlimInsertRecord)
		elog(ERROR, "slimheap: an insert record of %zu bytes", len);
	memcpy(&rec, data, SizeOfSlimInsertRecord);
	if (len < SizeOfSlimInsertRecord + rec.facts_len)
		elog(ERROR, "slimheap: an insert record shorter than its facts");

	/* only interested in our database */
	if (rec.db != ctx->slot->data.database)
		return;
	/* the output plugin does not want this origin: nothing to queue */
	if (ctx->callbacks.filter_by_origin_cb != NULL &&
		filter_by_origin_cb_wrapper(ctx, XLogRecGetOrigin(r)))
		return;

	target.rb = ctx->reorder;
	target.change = slim_rb_alloc_change(ctx->reorder);
	target.change->action = (rec.flags & SLIM_INSERT_SPECULATIVE) ?
		REORDER_BUFFER_CHANGE_INTERNAL_SPEC_INSERT :
		REORDER_BUFFER_CHANGE_INSERT;
	target.change->origin_id = XLogRecGetOrigin(r);
	slim_change_set_file(target.change, rec.spc, rec.db, rec.relnumber);

	stored = slim_decode_stored_row(&rec,
									data + SizeOfSlimInsertRecord + rec.facts_len,
									len - SizeOfSlimInsertRecord - rec.facts_len);
	(void) slim_tail_expand_by_facts(stored, rec.prefix_end,
									 data + SizeOfSlimInsertRecord,
									 rec.facts_len, slim_decode_alloc, &target);
	pfree(stored);
	target.change->data.tp.clear_toast_afterwards = true;

	ReorderBufferQueueChange(ctx->reorder, XLogRecGetXid(r), buf->origptr,
							 target.change, false);
}

/* pg_waldump: the relation's file, and the row's size */
void
slim_wal_desc_insert(StringInfo buf, XLogReaderState *record)
{
	SlimInsertRecord rec;

	if (XLogRecGetDataLen(record) < SizeOfSlimInsertRecord)
		return;
	memcpy(&rec, XLogRecGetData(record), SizeOfSlimInsertRecord);
	appendStringInfo(buf, "rel %u/%u/%u; prefix natts %d; %u facts bytes, %u row bytes%s",
					 rec.spc, rec.db, rec.relnumber,
					 rec.t_infomask2 & HEAP_NATTS_MASK,
					 (unsigned int) rec.facts_len,
					 (unsigned int) (XLogRecGetDataLen(record) -
									 SizeOfSlimInsertRecord - rec.facts_len),
					 (rec.flags & SLIM_INSERT_SPECULATIVE) ? "; speculative" : "");
}
