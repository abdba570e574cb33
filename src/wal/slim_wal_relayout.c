/*-------------------------------------------------------------------------
 *
 * slim_wal_relayout.c
 *	  Rows written over themselves on their page in another layout: the
 *	  write, its record XLOG_SLIM_RELAYOUT, and its redo.
 *
 * Each row keeps its line pointer and the first fields of its header
 * (t_xmin, t_xmax, t_cid or t_xvac, t_ctid) and the infomask bits that
 * tell its history; only the data and the bits that follow from it change.
 * The caller (slim_relayout.c) holds a cleanup lock: nobody else holds a
 * pointer into the page's tuples, which move.  Redo takes a cleanup lock
 * too, as pruning's does, for the queries of a hot standby.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/wal/slim_wal_relayout.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xloginsert.h"
#include "access/xlogutils.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"

#include "slim_compat.h"
#include "slim_tail.h"
#include "slim_wal.h"

/* the header bits that follow from a row's data; the others, its history */
#define SLIM_INFOMASK_DATA		(HEAP_HASNULL | HEAP_HASVARWIDTH | HEAP_HASEXTERNAL)
#define SLIM_INFOMASK2_DATA		(HEAP_NATTS_MASK | SLIM_HEAP_TAIL)

/*
 * Write the row whose bytes from t_infomask2 on are body (len bytes) over
 * the row at offnum, keeping the first fields of its header (visibility,
 * t_ctid) and the infomask bits that tell its history.  False when the
 * item is no row or the page has no room.  In a critical section on the
 * primary, and in redo.
 */
bool
slim_wal_relayout_row(Page page, OffsetNumber offnum, const char *body,
					  uint16 len)
{
	PGAlignedBlock buf;
	HeapTupleHeader td = (HeapTupleHeader) buf.data;
	HeapTupleHeader old;
	ItemId		lp;
	Size		size = SLIM_RELAYOUT_BODY_OFFSET + len;

	if (offnum < FirstOffsetNumber || offnum > PageGetMaxOffsetNumber(page) ||
		size > MaxHeapTupleSize)
		return false;
	lp = PageGetItemId(page, offnum);
	if (!ItemIdIsNormal(lp))
		return false;
	old = (HeapTupleHeader) PageGetItem(page, lp);
	memcpy(td, old, SLIM_RELAYOUT_BODY_OFFSET);
	memcpy(buf.data + SLIM_RELAYOUT_BODY_OFFSET, body, len);
	td->t_infomask2 = (old->t_infomask2 & ~SLIM_INFOMASK2_DATA) |
		(td->t_infomask2 & SLIM_INFOMASK2_DATA);
	td->t_infomask = (old->t_infomask & ~SLIM_INFOMASK_DATA) |
		(td->t_infomask & SLIM_INFOMASK_DATA);
	return PageIndexTupleOverwrite(page, offnum, (char *) td, size);
}

/*
 * Write rows[i] over the row at offsets[i] of buf's page (cleanup-locked,
 * with room for them all) and log it, when rel needs WAL, in one record.
 */
void
slim_wal_relayout_page(Relation rel, Buffer buf, const OffsetNumber *offsets,
					   HeapTuple *rows, int n)
{
	Page		page = BufferGetPage(buf);
	bool		needs_wal = RelationNeedsWAL(rel);
	StringInfoData wal;
	int			i;

	/* the record's data, made before the critical section */
	initStringInfo(&wal);
	for (i = 0; needs_wal && i < n; i++)
	{
		SlimRelayoutEntry entry;

		entry.offnum = offsets[i];
		entry.len = rows[i]->t_len - SLIM_RELAYOUT_BODY_OFFSET;
		appendBinaryStringInfo(&wal, (char *) &entry, sizeof(entry));
		appendBinaryStringInfo(&wal, (char *) rows[i]->t_data +
							   SLIM_RELAYOUT_BODY_OFFSET, entry.len);
	}

	START_CRIT_SECTION();
	for (i = 0; i < n; i++)
	{
		if (!slim_wal_relayout_row(page, offsets[i],
								   (char *) rows[i]->t_data +
								   SLIM_RELAYOUT_BODY_OFFSET,
								   rows[i]->t_len - SLIM_RELAYOUT_BODY_OFFSET))
			elog(PANIC, "could not re-lay out row (%u,%u) of \"%s\"",
				 BufferGetBlockNumber(buf), offsets[i],
				 RelationGetRelationName(rel));
	}
	MarkBufferDirty(buf);
	if (needs_wal)
	{
		XLogRecPtr	recptr;
		uint16		nrows = n;

		XLogBeginInsert();
		XLogRegisterData((char *) &nrows, sizeof(nrows));
		XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
		XLogRegisterBufData(0, wal.data, wal.len);
		recptr = XLogInsert(SLIM_RMGR_ID, XLOG_SLIM_RELAYOUT);
		PageSetLSN(page, recptr);
	}
	END_CRIT_SECTION();
	pfree(wal.data);
}

/* redo of XLOG_SLIM_RELAYOUT, under a cleanup lock of the page */
void
slim_wal_redo_relayout(XLogReaderState *record)
{
	Buffer		buf;

	if (XLogReadBufferForRedoExtended(record, 0, RBM_NORMAL, true,
									  &buf) == BLK_NEEDS_REDO)
	{
		Page		page = BufferGetPage(buf);
		Size		len;
		char	   *data = XLogRecGetBlockData(record, 0, &len);
		char	   *end = data + len;
		uint16		nrows;
		int			n = 0;

		memcpy(&nrows, XLogRecGetData(record), sizeof(nrows));
		while (data < end)
		{
			SlimRelayoutEntry entry;

			memcpy(&entry, data, sizeof(entry));
			data += sizeof(entry);
			if (!slim_wal_relayout_row(page, entry.offnum, data, entry.len))
				elog(PANIC, "slimheap redo: could not re-lay out row at offset %u",
					 entry.offnum);
			data += entry.len;
			n++;
		}
		if (n != nrows)
			elog(PANIC, "slimheap redo: record holds %d rows, says %u", n, nrows);
		PageSetLSN(page, record->EndRecPtr);
		MarkBufferDirty(buf);
	}
	if (BufferIsValid(buf))
		UnlockReleaseBuffer(buf);
}

/* pg_waldump and wal_debug: how many rows the record re-lays */
void
slim_wal_desc_relayout(StringInfo buf, XLogReaderState *record)
{
	uint16		nrows;

	if (XLogRecGetDataLen(record) < sizeof(nrows))
		return;
	memcpy(&nrows, XLogRecGetData(record), sizeof(nrows));
	appendStringInfo(buf, "rows: %u", (unsigned int) nrows);
}
