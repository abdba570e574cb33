/*-------------------------------------------------------------------------
 *
 * slim_relayout.h
 *	  Re-laying out tail rows in place on their page, and the WAL resource
 *	  manager whose record replays that (slim_relayout.c, slim_wal.c).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_relayout.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_RELAYOUT_H
#define SLIM_RELAYOUT_H

#include "access/htup_details.h"
#include "access/xlogreader.h"
#include "lib/stringinfo.h"
#include "nodes/bitmapset.h"
#include "storage/bufpage.h"
#include "utils/rel.h"

/*
 * slimheap's custom WAL resource manager (README.md "WAL"): one ID for
 * every record slimheap writes.  Custom IDs are 128-255; 128 is for
 * experiments.  It must be on the PostgreSQL wiki's list of custom WAL
 * resource managers before a release.
 */
#define SLIM_RMGR_ID			151
#define SLIM_RMGR_NAME			"slimheap"

/* the records' kinds (the high bits of xl_info) */
#define XLOG_SLIM_RELAYOUT		0x00

/*
 * XLOG_SLIM_RELAYOUT: the main data is the number of rows (uint16);
 * block 0's data: per row re-laid, in the order the
 * primary re-laid them, its offset number, the length of what follows,
 * and the row's bytes from t_infomask2 on (the header's first fields,
 * visibility included, stay the page's own).
 */
typedef struct SlimRelayoutEntry
{
	OffsetNumber offnum;
	uint16		len;			/* bytes from t_infomask2 to the row's end */
} SlimRelayoutEntry;

#define SLIM_RELAYOUT_BODY_OFFSET	offsetof(HeapTupleHeaderData, t_infomask2)

/* slim_wal.c: the resource manager */
extern void slim_wal_init(void);
extern bool slim_wal_registered(void);
extern void slim_wal_redo(XLogReaderState *record);
extern void slim_wal_desc(StringInfo buf, XLogReaderState *record);
extern const char *slim_wal_identify(uint8 info);

/* slim_relayout.c: the re-layout, on the primary and in redo */
extern bool slim_relayout_apply(Page page, OffsetNumber offnum,
								const char *body, uint16 len);
extern bool slim_relayout_possible(Relation rel);
extern bool slim_relayout_table(Relation rel, const Bitmapset *attrs,
								bool whole_row, int last, uint64 *relaid);

#endif							/* SLIM_RELAYOUT_H */
