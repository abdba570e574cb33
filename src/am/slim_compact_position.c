/*-------------------------------------------------------------------------
 *
 * slim_compact_position.c
 *	  Where CALL slimheap.compact() stopped, kept in a small file for the
 *	  next call.
 *
 * compact's re-layouts are not transactional: a page written stays
 * written whether the call ends, is cancelled, or the server crashes.  So
 * that the next call goes on where the last one stopped, instead of
 * forming every row of the pages done once more to find that none would
 * shrink, compact keeps its position: the first block not yet done and
 * the blocks it skipped because another session pinned them.  A page
 * cannot carry a mark, and a table row would be decoded, replicated and
 * seen by change data capture, so the position is a file of its own,
 * $PGDATA/pg_slimheap/compact_<database>_<table>, written whole under a
 * temporary name and renamed (durable_rename()), after the WAL of the
 * pages it counts as done is flushed.  It holds the relation's file
 * number and a key of the forms compact gives rows (mode, floors, number
 * of attributes): a rewrite, TRUNCATE, a new mode or a new index makes it
 * void, and the next call starts at block 0.  A call that reaches the end
 * removes it.  A lost or stale file costs only savings, never rows:
 * compact stores the same values in either form.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_compact_position.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/xlog.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "port/pg_crc32c.h"
#include "storage/fd.h"
#include "utils/syscache.h"

#include "slim_compact_position.h"
#include "slim_compat.h"
#include "slim_floor.h"
#include "slimheap.h"

#define SLIM_POSITION_DIR		"pg_slimheap"
#define SLIM_POSITION_MAGIC		0x534C4331	/* "SLC1" */
/* pinned blocks kept; past these, the position stops at the next one */
#define SLIM_POSITION_PINNED	64

typedef struct SlimCompactPosition
{
	uint32		magic;
	uint32		relnumber;		/* the relation's file when written */
	uint32		form_key;		/* slim_compact_form_key() then */
	BlockNumber next;			/* the first block not done */
	uint32		npinned;
	BlockNumber pinned[SLIM_POSITION_PINNED];	/* skipped, to do again */
	pg_crc32c	crc;			/* of everything above */
} SlimCompactPosition;

/* the file of relid in this database; suffix: "" or a temporary name */
static void
slim_position_path(char *path, Oid relid, const char *suffix)
{
	snprintf(path, MAXPGPATH, "%s/compact_%u_%u%s", SLIM_POSITION_DIR,
			 MyDatabaseId, relid, suffix);
}

static pg_crc32c
slim_position_crc(const SlimCompactPosition *pos)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, pos, offsetof(SlimCompactPosition, crc));
	FIN_CRC32C(crc);
	return crc;
}

/*
 * The relation's file number; 0 for a temporary or unlogged table, whose
 * position is not kept (a crash empties an unlogged table in the same file)
 */
static uint32
slim_position_relnumber(Relation rel)
{
	Oid			spc;
	Oid			db;
	uint32		num;

	if (rel->rd_rel->relpersistence != RELPERSISTENCE_PERMANENT)
		return 0;
	slim_rel_file(rel, spc, db, num);
	(void) spc;
	(void) db;
	return num;
}

/*
 * What decides the form compact gives rel's rows: its mode, its floors and
 * its number of attributes.  Rows of pages done under another key may
 * have another form, so a position kept under it is void.
 */
uint32
slim_compact_form_key(Relation rel)
{
	const SlimRelInfo *info = slim_get_relinfo(rel);
	const SlimFloor *floor = info->rewrite_prefix_floor;
	uint32		key;

	/* field by field: the struct's padding is no part of the floor */
	key = hash_bytes((const unsigned char *) floor->need,
					 floor->nneed * sizeof(int16));
	key = hash_combine(key, (uint32) floor->base);
	key = hash_combine(key, (uint32) floor->ends_null);
	key = hash_combine(key, (uint32) floor->nneed);
	key = hash_combine(key, (uint32) info->options.null_bitmap);
	key = hash_combine(key, (uint32) info->missing_floor);
	return hash_combine(key, (uint32) RelationGetDescr(rel)->natts);
}

/*
 * Where the last call on rel stopped, if it kept a position that still
 * holds: the first block not done (0 if none), and the blocks it skipped
 * appended to *pinned.
 */
BlockNumber
slim_compact_position_read(Relation rel, uint32 form_key, List **pinned)
{
	char		path[MAXPGPATH];
	SlimCompactPosition pos;
	uint32		relnumber = slim_position_relnumber(rel);
	int			fd;
	int			got;
	uint32		i;

	if (relnumber == 0)
		return 0;
	slim_position_path(path, RelationGetRelid(rel), "");
	fd = OpenTransientFile(path, O_RDONLY | PG_BINARY);
	if (fd < 0)
	{
		if (errno != ENOENT)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open file \"%s\": %m", path)));
		return 0;
	}
	got = read(fd, &pos, sizeof(pos));
	CloseTransientFile(fd);
	/* renamed into place whole: anything else is not ours, or stale */
	if (got != sizeof(pos) || pos.magic != SLIM_POSITION_MAGIC ||
		!EQ_CRC32C(pos.crc, slim_position_crc(&pos)) ||
		pos.relnumber != relnumber || pos.form_key != form_key ||
		pos.npinned > SLIM_POSITION_PINNED)
		return 0;
	for (i = 0; i < pos.npinned; i++)
		*pinned = lappend_int(*pinned, (int) pos.pinned[i]);
	return pos.next;
}

/* pg_slimheap, made when first needed */
static void
slim_position_make_dir(void)
{
	struct stat st;

	if (stat(SLIM_POSITION_DIR, &st) == 0 && S_ISDIR(st.st_mode))
		return;
	if (MakePGDirectory(SLIM_POSITION_DIR) < 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create directory \"%s\": %m",
						SLIM_POSITION_DIR)));
}

/*
 * Keep rel's position: blocks before next are done, but for those in
 * pinned.  The WAL of the pages done is flushed first, so that after a
 * crash the file never counts a page whose re-layout was lost.
 */
void
slim_compact_position_write(Relation rel, uint32 form_key, BlockNumber next,
							List *pinned)
{
	char		path[MAXPGPATH];
	char		tmppath[MAXPGPATH];
	char		suffix[32];
	SlimCompactPosition pos;
	ListCell   *lc;
	int			fd;

	memset(&pos, 0, sizeof(pos));
	pos.relnumber = slim_position_relnumber(rel);
	if (pos.relnumber == 0)
		return;
	pos.magic = SLIM_POSITION_MAGIC;
	pos.form_key = form_key;
	pos.next = next;
	foreach(lc, pinned)
	{
		BlockNumber blkno = (BlockNumber) lfirst_int(lc);

		if (blkno >= next)
			continue;
		if (pos.npinned == SLIM_POSITION_PINNED)
		{
			/* too many to list: go on from the first not listed */
			pos.next = Min(pos.next, blkno);
			continue;
		}
		pos.pinned[pos.npinned++] = blkno;
	}
	pos.crc = slim_position_crc(&pos);

	if (XactLastRecEnd != InvalidXLogRecPtr)
		XLogFlush(XactLastRecEnd);
	slim_position_make_dir();
	slim_position_path(path, RelationGetRelid(rel), "");
	snprintf(suffix, sizeof(suffix), ".tmp.%d", MyProcPid);
	slim_position_path(tmppath, RelationGetRelid(rel), suffix);
	fd = OpenTransientFile(tmppath, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", tmppath)));
	errno = 0;
	if (write(fd, &pos, sizeof(pos)) != sizeof(pos))
	{
		int			save_errno = errno ? errno : ENOSPC;

		CloseTransientFile(fd);
		unlink(tmppath);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", tmppath)));
	}
	if (CloseTransientFile(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", tmppath)));
	/* fsyncs the file, renames it, fsyncs the directory */
	(void) durable_rename(tmppath, path, ERROR);
}

/* the position of relid is done with: the table was compacted to its end */
void
slim_compact_position_forget(Oid relid)
{
	char		path[MAXPGPATH];
	struct stat st;

	slim_position_path(path, relid, "");
	if (stat(path, &st) == 0)
		(void) durable_unlink(path, WARNING);
}

/*
 * Remove the positions of this database's tables that no longer exist: a
 * table dropped before compact reached its end.  (A temporary file is left
 * by a crash while it was written, a few hundred bytes; it is written over
 * by the next session of that process ID that compacts the table.)
 */
void
slim_compact_position_sweep(void)
{
	DIR		   *dir;
	struct dirent *de;
	struct stat st;

	if (stat(SLIM_POSITION_DIR, &st) != 0)
		return;
	dir = AllocateDir(SLIM_POSITION_DIR);
	while ((de = ReadDir(dir, SLIM_POSITION_DIR)) != NULL)
	{
		Oid			dbid;
		Oid			relid;
		char		path[MAXPGPATH];

		/* not a temporary file: another session may be writing it */
		if (sscanf(de->d_name, "compact_%u_%u", &dbid, &relid) != 2 ||
			strstr(de->d_name, ".tmp.") != NULL || dbid != MyDatabaseId ||
			SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", SLIM_POSITION_DIR, de->d_name);
		if (unlink(path) != 0 && errno != ENOENT)
			ereport(WARNING,
					(errcode_for_file_access(),
					 errmsg("could not remove file \"%s\": %m", path)));
	}
	FreeDir(dir);
}
