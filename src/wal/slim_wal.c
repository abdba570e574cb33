/*-------------------------------------------------------------------------
 *
 * slim_wal.c
 *	  slimheap's WAL resource manager: its registration, and the callbacks
 *	  that hand each record to its file (slim_wal_relayout.c: rows re-laid
 *	  in place; slim_wal_insert.c: a tail row inserted while logical
 *	  decoding is on; slim_wal_format.c: where rows of a newer form may
 *	  begin).  The records' layouts: slim_wal.h.
 *
 * A custom resource manager can only be registered while the library is
 * loaded through shared_preload_libraries, and a server that replays or
 * decodes its records needs it registered too (a standby without it stops
 * at the first record; docs/options.md, "WAL").  So slimheap writes its records
 * only when it was registered here; elsewhere the callers do without
 * (slim_relayout_possible()).
 *
 * Redo takes a cleanup lock of the page, as pruning's does: a hot
 * standby's queries read rows holding only a pin, and the re-layout moves
 * the bytes of other rows of the page.  Logical decoding has nothing to
 * decode there: the rows' values and versions are unchanged.  An insert's
 * record has nothing to redo (heap's record before it restores the page)
 * and is decoded as heap's insert would be.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/wal/slim_wal.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam_xlog.h"
#include "access/xlog_internal.h"
#include "miscadmin.h"
#include "replication/reorderbuffer.h"
#include "replication/snapbuild.h"

#include "slim_compat.h"
#include "slim_wal.h"

static bool slim_rmgr_registered = false;

static RmgrData slim_rmgr = {
	.rm_name = SLIM_RMGR_NAME,
	.rm_redo = slim_wal_redo,
	.rm_desc = slim_wal_desc,
	.rm_identify = slim_wal_identify,
	.rm_decode = slim_wal_decode,
	/* the pages are heap's: wal_consistency_checking masks them as heap's */
	.rm_mask = heap_mask,
};

/* from _PG_init(): registers the resource manager when preloading */
void
slim_wal_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	RegisterCustomRmgr(SLIM_RMGR_ID, &slim_rmgr);
	slim_rmgr_registered = true;
}

bool
slim_wal_registered(void)
{
	return slim_rmgr_registered;
}

/* rm_redo: an insert's record has nothing to redo (heap's restores the page) */
void
slim_wal_redo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	if (info == XLOG_SLIM_INSERT)
		return;
	if (info == XLOG_SLIM_FORMAT)
	{
		slim_wal_redo_format(record);
		return;
	}
	if (info != XLOG_SLIM_RELAYOUT)
		elog(PANIC, "slimheap redo: unknown op code %u", info);
	slim_wal_redo_relayout(record);
}

/* rm_desc: pg_waldump and wal_debug */
void
slim_wal_desc(StringInfo buf, XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	if (info == XLOG_SLIM_INSERT)
		slim_wal_desc_insert(buf, record);
	else if (info == XLOG_SLIM_RELAYOUT)
		slim_wal_desc_relayout(buf, record);
	else if (info == XLOG_SLIM_FORMAT)
		slim_wal_desc_format(buf, record);
}

const char *
slim_wal_identify(uint8 info)
{
	if ((info & ~XLR_INFO_MASK) == XLOG_SLIM_RELAYOUT)
		return "RELAYOUT";
	if ((info & ~XLR_INFO_MASK) == XLOG_SLIM_INSERT)
		return "INSERT";
	if ((info & ~XLR_INFO_MASK) == XLOG_SLIM_FORMAT)
		return "FORMAT";
	return NULL;
}

/*
 * rm_decode: what heap's decoder does first with each of its records (the
 * transaction made known to the reorder buffer; nothing more without a
 * full snapshot, or while fast-forwarding, which still needs the
 * snapshot built), then an insert's change, except in 19's REPACK
 * (CONCURRENTLY) worker, which wants only its heap table's changes.
 */
void
slim_wal_decode(LogicalDecodingContext *ctx, XLogRecordBuffer *buf)
{
	uint8		info = XLogRecGetInfo(buf->record) & ~XLR_INFO_MASK;
	TransactionId xid = XLogRecGetXid(buf->record);

	ReorderBufferProcessXid(ctx->reorder, xid, buf->origptr);
	if (info != XLOG_SLIM_INSERT || slim_decoding_for_repack())
		return;
	if (SnapBuildCurrentState(ctx->snapshot_builder) < SNAPBUILD_FULL_SNAPSHOT)
		return;
	if (SnapBuildProcessChange(ctx->snapshot_builder, xid, buf->origptr) &&
		!ctx->fast_forward)
		slim_wal_decode_insert(ctx, buf);
}
