/*-------------------------------------------------------------------------
 *
 * slim_wal.h
 *	  slimheap's WAL: its resource manager and the layouts of both of its
 *	  records (src/wal/).
 *
 * One resource manager, two records:
 *
 * XLOG_SLIM_RELAYOUT: rows of one page written over themselves in another
 * layout (the in-place re-layout, slim_relayout.c).  Redo writes them again
 * under a cleanup lock; logical decoding has nothing to decode, since no
 * value and no row version changes (slim_wal_relayout.c).
 *
 * XLOG_SLIM_INSERT: a row with a compressed tail inserted while logical
 * decoding is on.  heap logs the row (heap_insert() with
 * HEAP_INSERT_NO_LOGICAL: redo restores the page from heap's record, and
 * heap's decoder skips it), and this record, right after it in the same
 * transaction, is what logical decoding turns into the INSERT heap's
 * decoder would have queued: heap's full form of the row.  No catalog can
 * be read while decoding, so the record carries the row as stored and, for
 * each value of its tail, the facts that lay it out as heap does
 * (slim_tail_facts()).  Redo has nothing to do (slim_wal_insert.c).
 * docs/format.md, "Logical decoding".
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
#include "lib/stringinfo.h"
#include "replication/decode.h"
#include "storage/buf.h"
#include "storage/bufpage.h"
#include "utils/rel.h"

/*
 * slimheap's custom WAL resource manager (docs/options.md "WAL"): one ID for
 * every record slimheap writes.  Custom IDs are 128-255; 128 is for
 * experiments.  It must be on the PostgreSQL wiki's list of custom WAL
 * resource managers before a release.
 */
#define SLIM_RMGR_ID			151
#define SLIM_RMGR_NAME			"slimheap"

/* the records' kinds (the high bits of xl_info) */
#define XLOG_SLIM_RELAYOUT		0x00
#define XLOG_SLIM_INSERT		0x10
#define XLOG_SLIM_FORMAT		0x20

/*
 * XLOG_SLIM_FORMAT's main data: a uint32, the form of rows that may follow
 * (the extension's version: 104 for 1.4).  This library reads rows up to
 * SLIM_WAL_FORMAT; its redo stops at a newer one (slim_wal_format.c).
 */
#define SLIM_WAL_FORMAT			104

/*
 * XLOG_SLIM_RELAYOUT: the main data is the number of rows (uint16);
 * block 0's data: per row re-laid, in the order the primary re-laid them,
 * this entry and the row's bytes from t_infomask2 on (the header's first
 * fields, visibility included, stay the page's own).
 */
typedef struct SlimRelayoutEntry
{
	OffsetNumber offnum;
	uint16		len;			/* bytes from t_infomask2 to the row's end */
} SlimRelayoutEntry;

#define SLIM_RELAYOUT_BODY_OFFSET	offsetof(HeapTupleHeaderData, t_infomask2)

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
	uint16		prefix_end;		/* P: where the tail starts in the data */
	uint16		t_infomask2;
	uint16		t_infomask;
	uint8		t_hoff;
	uint8		flags;
} SlimInsertRecord;

#define SizeOfSlimInsertRecord	(offsetof(SlimInsertRecord, flags) + sizeof(uint8))

/* slim_wal.c: the resource manager */
extern void slim_wal_init(void);
extern bool slim_wal_registered(void);
extern void slim_wal_redo(XLogReaderState *record);
extern void slim_wal_desc(StringInfo buf, XLogReaderState *record);
extern const char *slim_wal_identify(uint8 info);
extern void slim_wal_decode(LogicalDecodingContext *ctx, XLogRecordBuffer *buf);

/* slim_wal_relayout.c: rows re-laid in place, on the primary and in redo */
extern bool slim_wal_relayout_row(Page page, OffsetNumber offnum,
								  const char *body, uint16 len);
extern void slim_wal_relayout_page(Relation rel, Buffer buf,
								   const OffsetNumber *offsets,
								   HeapTuple *rows, int n);
extern void slim_wal_redo_relayout(XLogReaderState *record);
extern void slim_wal_desc_relayout(StringInfo buf, XLogReaderState *record);

/* slim_wal_insert.c: a tail row inserted under logical decoding */
extern void slim_wal_log_insert(Relation rel, HeapTuple tuple,
								bool speculative);
extern void slim_wal_decode_insert(LogicalDecodingContext *ctx,
								   XLogRecordBuffer *buf);
extern void slim_wal_desc_insert(StringInfo buf, XLogReaderState *record);

/* slim_wal_format.c: XLOG_SLIM_FORMAT */
extern void slim_wal_log_format(uint32 format);
extern void slim_wal_redo_format(XLogReaderState *record);
extern void slim_wal_desc_format(StringInfo buf, XLogReaderState *record);

#endif							/* SLIM_WAL_H */
