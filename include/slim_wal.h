/*-------------------------------------------------------------------------
 *
 * slim_wal.h
 *	  The record slimheap writes for a row with a compressed tail inserted
 *	  while logical decoding is on, and its decoding (slim_wal_insert.c).
 *
 * heap logs such a row (heap_insert() with HEAP_INSERT_NO_LOGICAL: redo
 * restores the page from heap's record, and heap's decoder skips it), and
 * this record, right after it in the same transaction, is what logical
 * decoding turns into the INSERT heap's decoder would have queued: heap's
 * full form of the row.  No catalog can be read while decoding, so the
 * record carries the row as stored and, for each value of its tail, the
 * facts that lay it out as heap does (slim_tail_facts()).  Redo has nothing
 * to do.  docs/format.md, "Logical decoding".
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_wal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_WAL_H
#define SLIM_WAL_H

#include "access/htup_details.h"
#include "access/xlogreader.h"
#include "replication/decode.h"
#include "utils/rel.h"

/* the record's kind (the high bits of xl_info; re-layout is 0x00) */
#define XLOG_SLIM_INSERT		0x10

/* SlimInsertRecord.flags */
#define SLIM_INSERT_SPECULATIVE	0x01	/* INSERT ... ON CONFLICT's insert */

/*
 * XLOG_SLIM_INSERT's main data: this header, the facts (facts_len bytes),
 * then the row's bytes from SizeofHeapTupleHeader on, as heap stored them.
 */
typedef struct SlimInsertRecord
{
	Oid			spc;			/* the relation's file: tablespace, */
	Oid			db;				/* database and file number */
	Oid			relnumber;
	uint16		facts_len;
	uint16		prefix_end;		/* where the tail starts in the data */
	uint16		t_infomask2;
	uint16		t_infomask;
	uint8		t_hoff;
	uint8		flags;
} SlimInsertRecord;

#define SizeOfSlimInsertRecord	(offsetof(SlimInsertRecord, flags) + sizeof(uint8))

/* slim_wal.c: the resource manager's decoding (the rest: slim_relayout.h) */
extern void slim_wal_decode(LogicalDecodingContext *ctx, XLogRecordBuffer *buf);

/* slim_wal_insert.c */
extern void slim_wal_log_insert(Relation rel, HeapTuple tuple,
								bool speculative);
extern void slim_wal_decode_insert(LogicalDecodingContext *ctx,
								   XLogRecordBuffer *buf);
extern void slim_wal_desc_insert(StringInfo buf, XLogReaderState *record);

#endif							/* SLIM_WAL_H */
