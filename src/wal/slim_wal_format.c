/*-------------------------------------------------------------------------
 *
 * slim_wal_format.c
 *	  XLOG_SLIM_FORMAT: the record that marks where the WAL may begin to
 *	  hold rows of a newer form, so that an older library replaying it
 *	  stops there instead of misreading them.
 *
 * Extension 1.4 lets a compressed tail end with stored NULLs
 * (docs/fast-defaults.md).  A library of 1.2, or a 1.3 built before it
 * learnt to refuse that header, reads such a row's tail values as NULL,
 * and an UPDATE or VACUUM there would store those NULLs for good.  Rows of
 * the new form are written only once the catalog's update (or CREATE
 * EXTENSION of 1.4) has committed; the script writes this record first,
 * in the same transaction, so that it comes before any of them in the WAL.
 * Every slimheap library that registers its resource manager stops a
 * recovery at an op code it does not know (PANIC); a server without it
 * (not preloaded, or 1.0's library, which has none) stops at any record
 * of ours.  So a standby, a restored base backup or a crash recovery that
 * replays the update's WAL with an older library stops at this record;
 * 1.4's own redo stops only at a format newer than the one it reads.  It
 * is a tripwire, met once: a replay that starts after it (a standby cloned
 * later, a base backup taken later) must have the new library from the
 * start.  An update that rolls back leaves the record too (an older
 * standby stops where it need not: the safe side).  Logical decoding
 * ignores it: a decoding server must have the new library before the
 * update (docs/upgrading.md).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/wal/slim_wal_format.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xloginsert.h"

#include "slim_wal.h"

/*
 * Write the record saying that rows of form `format` may follow.  Only
 * with slimheap's resource manager registered (slim_wal_registered(), the
 * caller's to ask): a server without it has none to replay it with, and
 * writes no record of ours at all.
 */
void
slim_wal_log_format(uint32 format)
{
	XLogBeginInsert();
	XLogRegisterData((char *) &format, sizeof(format));
	(void) XLogInsert(SLIM_RMGR_ID, XLOG_SLIM_FORMAT);
}

/* the record's format, or false when its data is not one */
static bool
slim_wal_format_of(XLogReaderState *record, uint32 *format)
{
	if (XLogRecGetDataLen(record) != sizeof(*format))
		return false;
	memcpy(format, XLogRecGetData(record), sizeof(*format));
	return true;
}

/* nothing to redo, unless the rows that follow are of a form unknown here */
void
slim_wal_redo_format(XLogReaderState *record)
{
	uint32		format;

	if (!slim_wal_format_of(record, &format))
		elog(PANIC, "slimheap redo: format record of %u bytes",
			 (unsigned) XLogRecGetDataLen(record));
	if (format > SLIM_WAL_FORMAT)
		ereport(PANIC,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("WAL from here on may hold slimheap rows of format %u, which this slimheap library (format %u) does not read",
						format, SLIM_WAL_FORMAT),
				 errhint("Install the slimheap library of the primary on this server and start it again.")));
}

/* also run by pg_walinspect and error contexts: it reports, never fails */
void
slim_wal_desc_format(StringInfo buf, XLogReaderState *record)
{
	uint32		format;

	if (slim_wal_format_of(record, &format))
		appendStringInfo(buf, "rows of format %u may follow", format);
	else
		appendStringInfo(buf, "bad length %u",
						 (unsigned) XLogRecGetDataLen(record));
}
