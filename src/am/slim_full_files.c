/*-------------------------------------------------------------------------
 *
 * slim_full_files.c
 *	  The record that a narrow table's file holds no short row, so that a
 *	  scan may take heap's rows with no check.
 *
 * A narrow table's rows go out through heap's own slot, each checked to
 * have every attribute (slim_heap_slot.h).  A file this library created
 * empty while the table had natts attributes, and has written since, holds
 * no row of fewer: every row it writes into a narrow table has the
 * descriptor's natts, and natts never falls.  slimheap.full_row_files (an
 * unlogged heap table of the 1.4 scripts) keeps one row per relation:
 * (relid, spcoid, relfilenode, natts) of the file it last created.  A scan
 * trusts it only while all four equal the relcache's (ADD COLUMN, a new
 * file or a new tablespace make it stale, never false).  docs/narrow-slot.md
 * "The record of full files" gives the argument.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_full_files.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/indexing.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "slim_am.h"
#include "slim_compat.h"
#include "slimheap.h"

#define SLIM_FULL_FILES_TABLE	"full_row_files"
#define SLIM_FULL_FILES_NATTS	4

/* the columns of slimheap.full_row_files, and their types */
enum
{
	Anum_full_relid = 1,
	Anum_full_spcoid,
	Anum_full_relfilenode,
	Anum_full_natts
};
static const Oid slim_full_files_types[SLIM_FULL_FILES_NATTS] = {
	OIDOID, OIDOID, OIDOID, INT2OID
};

/*
 * A record: the file (spcoid, relfilenode) that holds no row of fewer than
 * natts attributes, or none (relfilenode InvalidOid)
 */
typedef struct SlimFullFile
{
	int16		natts;
	Oid			spcoid;
	Oid			relfilenode;
} SlimFullFile;

/* set by _PG_init(): loaded by shared_preload_libraries */
static bool slim_full_files_preloaded = false;

static void slim_full_files_dropped(Oid relid);

void
slim_full_files_init(void)
{
	slim_full_files_preloaded = process_shared_preload_libraries_in_progress;
	slim_options_on_drop(slim_full_files_dropped);
}

bool
slim_full_files_enabled(void)
{
	return slim_full_files_preloaded;
}

/*
 * May records of rel's files be written and trusted now?  Only where a
 * postmaster restart has proved that no session runs a library that could
 * still write truncated rows into a narrow table (preloaded), under a
 * committed 1.4 catalog, never for the files pg_upgrade brings, and for a
 * narrow table or materialized view that is not temporary.
 */
static bool
slim_full_files_apply(Relation rel, int natts)
{
	if (!slim_full_files_preloaded || IsBinaryUpgrade ||
		!IsTransactionState() || RecoveryInProgress() ||
		HistoricSnapshotActive())
		return false;
	if (natts > SLIM_NARROW_NATTS ||
		rel->rd_rel->relpersistence == RELPERSISTENCE_TEMP ||
		(rel->rd_rel->relkind != RELKIND_RELATION &&
		 rel->rd_rel->relkind != RELKIND_MATVIEW))
		return false;
	return slim_catalog_current();
}

/*
 * The OID of slimheap.full_row_files: found in the schema of the handler
 * of access method amoid, slimheap (never through search_path), and only
 * an unlogged heap table of a superuser counts.
 */
static Oid
slim_full_files_relid(Oid amoid)
{
	HeapTuple	tuple;
	Oid			handler;
	Oid			nsp;
	Oid			relid;
	Form_pg_class form;
	bool		trusted;

	tuple = SearchSysCache1(AMOID, ObjectIdGetDatum(amoid));
	if (!HeapTupleIsValid(tuple))
		return InvalidOid;
	handler = ((Form_pg_am) GETSTRUCT(tuple))->amhandler;
	ReleaseSysCache(tuple);
	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(handler));
	if (!HeapTupleIsValid(tuple))
		return InvalidOid;
	nsp = ((Form_pg_proc) GETSTRUCT(tuple))->pronamespace;
	ReleaseSysCache(tuple);

	relid = get_relname_relid(SLIM_FULL_FILES_TABLE, nsp);
	if (!OidIsValid(relid))
		return InvalidOid;
	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		return InvalidOid;
	form = (Form_pg_class) GETSTRUCT(tuple);
	trusted = form->relkind == RELKIND_RELATION &&
		form->relpersistence == RELPERSISTENCE_UNLOGGED &&
		form->relam == HEAP_TABLE_AM_OID &&
		form->relnatts == SLIM_FULL_FILES_NATTS &&
		superuser_arg(form->relowner);
	ReleaseSysCache(tuple);
	return trusted ? relid : InvalidOid;
}

/*
 * Is the only index of files its key, as the 1.4 scripts make it: unique,
 * immediate, on relid alone, no expression or predicate?  The writes go
 * through CatalogTupleInsert(), which forms index entries without an
 * executor (an expression index would crash it), and the reads by the key.
 */
static bool
slim_full_files_only_key(Relation files, Oid *pkey)
{
	List	   *indexes = RelationGetIndexList(files);
	HeapTuple	tuple;
	Form_pg_index index;
	bool		plain;

	*pkey = files->rd_pkindex;
	if (list_length(indexes) != 1 || linitial_oid(indexes) != *pkey)
	{
		list_free(indexes);
		return false;
	}
	list_free(indexes);
	tuple = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(*pkey));
	if (!HeapTupleIsValid(tuple))
		return false;
	index = (Form_pg_index) GETSTRUCT(tuple);
	plain = index->indisunique && index->indimmediate && index->indisvalid &&
		index->indisready && index->indnatts == 1 &&
		index->indkey.values[0] == Anum_full_relid &&
		heap_attisnull(tuple, Anum_pg_index_indexprs, NULL) &&
		heap_attisnull(tuple, Anum_pg_index_indpred, NULL);
	ReleaseSysCache(tuple);
	return plain;
}

/*
 * slimheap.full_row_files of access method amoid opened in lockmode, with
 * the OID of its primary key, if it is there with the columns above and
 * its key as its only index (slim_full_files_only_key()); else
 * NULL.  Without busy, waits for its lock: writers must not leave a record
 * behind (a dropped table's, whose OID and file number a new table may
 * get).  With busy, only if the lock is free (*busy says it was not): a
 * scan never waits for it, as no record costs a check, not a row.
 */
static Relation
slim_full_files_open(Oid amoid, LOCKMODE lockmode, bool *busy, Oid *pkey)
{
	Oid			relid = slim_full_files_relid(amoid);
	Relation	files;
	TupleDesc	desc;
	int			i;

	if (!OidIsValid(relid))
		return NULL;
	if (busy == NULL)
		LockRelationOid(relid, lockmode);
	else if (!ConditionalLockRelationOid(relid, lockmode))
	{
		*busy = true;
		return NULL;
	}
	files = try_relation_open(relid, NoLock);
	if (files == NULL)
	{
		UnlockRelationOid(relid, lockmode);
		return NULL;
	}
	desc = RelationGetDescr(files);
	for (i = 0; i < SLIM_FULL_FILES_NATTS; i++)
	{
		if (desc->natts != SLIM_FULL_FILES_NATTS ||
			TupleDescAttr(desc, i)->attisdropped ||
			TupleDescAttr(desc, i)->atttypid != slim_full_files_types[i])
			break;
	}
	if (i < SLIM_FULL_FILES_NATTS ||
		files->rd_rel->relkind != RELKIND_RELATION ||
		!slim_full_files_only_key(files, pkey))
	{
		relation_close(files, lockmode);
		return NULL;
	}
	return files;
}

/* relid's row, copied, or NULL: the caller has files open */
static HeapTuple
slim_full_files_fetch(Relation files, Oid pkey, Oid relid)
{
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;

	ScanKeyInit(&key, Anum_full_relid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	/*
	 * What is committed now, and this transaction's own rows: not an MVCC
	 * snapshot, which under SERIALIZABLE would take predicate locks, so
	 * that two transactions that each scan one narrow table and create
	 * another would fail to serialize, where heap's commit.  The caller
	 * holds the relation's lock: only record_full_rows() (whose lock lets
	 * readers in) may be changing its row meanwhile, and a reader that
	 * misses both versions finds no record, which costs a check.
	 */
	scan = systable_beginscan(files, pkey, true, SnapshotSelf, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
		tuple = heap_copytuple(tuple);
	systable_endscan(scan);
	return tuple;
}

/* the file a row of files names, into *out (none if a value is NULL) */
static void
slim_full_files_values(Relation files, HeapTuple tuple, SlimFullFile *out)
{
	Datum		values[SLIM_FULL_FILES_NATTS];
	bool		nulls[SLIM_FULL_FILES_NATTS];

	heap_deform_tuple(tuple, RelationGetDescr(files), values, nulls);
	if (nulls[Anum_full_spcoid - 1] || nulls[Anum_full_relfilenode - 1] ||
		nulls[Anum_full_natts - 1])
		return;
	out->spcoid = DatumGetObjectId(values[Anum_full_spcoid - 1]);
	out->relfilenode = DatumGetObjectId(values[Anum_full_relfilenode - 1]);
	out->natts = DatumGetInt16(values[Anum_full_natts - 1]);
}

/* does record name rel's file as it is now, natts and all? */
static bool
slim_full_file_names(const SlimFullFile *record, Relation rel)
{
	Oid			spcoid;
	Oid			dboid;
	Oid			relfilenode;

	slim_rel_file(rel, spcoid, dboid, relfilenode);
	(void) dboid;
	return OidIsValid(record->relfilenode) &&
		record->relfilenode == relfilenode && record->spcoid == spcoid &&
		record->natts == RelationGetDescr(rel)->natts;
}

/*
 * Look rel's record up: *out names the file it records, or no file
 * (relfilenode InvalidOid).  Run at a scan's start, never while a row is
 * written: it locks and reads a table.  False when it could not tell (the
 * table or its key was locked, or a historic snapshot is active), so that
 * a later scan asks again.
 */
static bool
slim_full_files_lookup(Relation rel, SlimFullFile *out)
{
	Relation	files;
	Oid			pkey;
	HeapTuple	tuple;
	bool		busy = false;

	out->spcoid = InvalidOid;
	out->relfilenode = InvalidOid;
	out->natts = 0;
	if (HistoricSnapshotActive())
		return false;
	if (!slim_full_files_apply(rel, RelationGetDescr(rel)->natts))
		return true;
	files = slim_full_files_open(rel->rd_rel->relam, AccessShareLock, &busy,
								 &pkey);
	if (files == NULL)
		return !busy;
	/* systable_beginscan() locks the key without a try: take it first */
	if (!ConditionalLockRelationOid(pkey, AccessShareLock))
	{
		relation_close(files, AccessShareLock);
		return false;
	}
	tuple = slim_full_files_fetch(files, pkey, RelationGetRelid(rel));
	if (tuple != NULL)
	{
		slim_full_files_values(files, tuple, out);
		heap_freetuple(tuple);
	}
	UnlockRelationOid(pkey, AccessShareLock);
	relation_close(files, AccessShareLock);
	return true;
}

/* relid's row: the values given, written over the old one or new */
static void
slim_full_files_store(Relation files, Oid pkey, Oid relid, Oid spcoid,
					  Oid relfilenode, int16 natts)
{
	Datum		values[SLIM_FULL_FILES_NATTS];
	bool		nulls[SLIM_FULL_FILES_NATTS] = {false};
	HeapTuple	old = slim_full_files_fetch(files, pkey, relid);
	HeapTuple	tuple;

	values[Anum_full_relid - 1] = ObjectIdGetDatum(relid);
	values[Anum_full_spcoid - 1] = ObjectIdGetDatum(spcoid);
	values[Anum_full_relfilenode - 1] = ObjectIdGetDatum(relfilenode);
	values[Anum_full_natts - 1] = Int16GetDatum(natts);
	tuple = heap_form_tuple(RelationGetDescr(files), values, nulls);
	if (old != NULL)
	{
		CatalogTupleUpdate(files, &old->t_self, tuple);
		heap_freetuple(old);
	}
	else
		CatalogTupleInsert(files, tuple);
	heap_freetuple(tuple);
}

/*
 * The relation whose file rel's new file becomes: a rewrite's transient
 * table, which make_new_heap() names pg_temp_<oid> and makes in that
 * table's schema, for its owner, with its descriptor, and whose file it
 * then swaps into that table, when this transaction holds that table in
 * ACCESS EXCLUSIVE mode, as every rewrite does but 19's REPACK
 * CONCURRENTLY; else rel itself.  relrewrite is not set yet when
 * heap_create() makes the file.  InvalidOid, no record, for a transient
 * that does not qualify: its record would outlive it (its drop is skipped,
 * slim_full_files_dropped()).  A table so named by hand can so cost only
 * its own owner a record.
 */
static Oid
slim_full_files_owner(Relation rel)
{
	const char *relname = RelationGetRelationName(rel);
	unsigned long source;
	LOCKTAG		tag;
	HeapTuple	tuple;
	bool		same;

	/* digits only, as "%u" writes them */
	if (strncmp(relname, "pg_temp_", 8) != 0 ||
		relname[8] < '1' || relname[8] > '9' ||
		strspn(relname + 8, "0123456789") != strlen(relname + 8))
		return RelationGetRelid(rel);
	source = strtoul(relname + 8, NULL, 10);
	if (source > PG_UINT32_MAX)
		return RelationGetRelid(rel);
	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum((Oid) source));
	if (!HeapTupleIsValid(tuple))
		return RelationGetRelid(rel);
	same = ((Form_pg_class) GETSTRUCT(tuple))->relnamespace ==
		RelationGetNamespace(rel) &&
		((Form_pg_class) GETSTRUCT(tuple))->relowner == rel->rd_rel->relowner &&
		((Form_pg_class) GETSTRUCT(tuple))->relnatts ==
		RelationGetDescr(rel)->natts;
	ReleaseSysCache(tuple);
	if (!same)
		return RelationGetRelid(rel);
	SET_LOCKTAG_RELATION(tag, MyDatabaseId, (Oid) source);
	return slim_lock_held_by_me(&tag, AccessExclusiveLock) ? (Oid) source :
		InvalidOid;
}

/*
 * rel has a new, empty file (relation_set_new_filelocator: CREATE TABLE,
 * TRUNCATE, a rewrite's transient table): record it, in this transaction,
 * whose rollback takes the record back with the file.
 */
void
slim_full_files_created(Relation rel, Oid spcoid, Oid relfilenode)
{
	Relation	files;
	Oid			pkey;
	Oid			owner;

	if (!slim_full_files_apply(rel, RelationGetDescr(rel)->natts))
		return;
	owner = slim_full_files_owner(rel);
	if (!OidIsValid(owner))
		return;
	/* waits: a record of a dropped table with this OID must not stay */
	files = slim_full_files_open(rel->rd_rel->relam, RowExclusiveLock, NULL,
								 &pkey);
	if (files == NULL)
		return;
	slim_full_files_store(files, pkey, owner, spcoid, relfilenode,
						  RelationGetDescr(rel)->natts);
	relation_close(files, NoLock);
}

/*
 * Record rel's file as it is now: slimheap.record_full_rows() has read
 * every row of it under SHARE ROW EXCLUSIVE lock.  False if no record can
 * be kept.
 */
bool
slim_full_files_record(Relation rel)
{
	int			natts = RelationGetDescr(rel)->natts;
	Relation	files;
	Oid			pkey;
	Oid			spcoid;
	Oid			dboid;
	Oid			relfilenode;

	if (!slim_full_files_apply(rel, natts))
		return false;
	files = slim_full_files_open(rel->rd_rel->relam, RowExclusiveLock, NULL,
								 &pkey);
	if (files == NULL)
		return false;
	slim_rel_file(rel, spcoid, dboid, relfilenode);
	(void) dboid;
	slim_full_files_store(files, pkey, RelationGetRelid(rel), spcoid,
						  relfilenode, natts);
	relation_close(files, NoLock);
	return true;
}

/*
 * rel's file was copied to another tablespace (SET TABLESPACE): the copy
 * holds the same rows, so a record of the old file moves to the new one.
 */
void
slim_full_files_copied(Relation rel, Oid spcoid, Oid relfilenode)
{
	Relation	files;
	Oid			pkey;
	HeapTuple	tuple;
	SlimFullFile old = {0};

	files = slim_full_files_open(rel->rd_rel->relam, RowExclusiveLock, NULL,
								 &pkey);
	if (files == NULL)
		return;
	tuple = slim_full_files_fetch(files, pkey, RelationGetRelid(rel));
	if (tuple != NULL)
	{
		slim_full_files_values(files, tuple, &old);
		if (slim_full_files_apply(rel, RelationGetDescr(rel)->natts) &&
			slim_full_file_names(&old, rel))
			slim_full_files_store(files, pkey, RelationGetRelid(rel), spcoid,
								  relfilenode, old.natts);
		else
			CatalogTupleDelete(files, &tuple->t_self);
		heap_freetuple(tuple);
	}
	relation_close(files, NoLock);
}

/*
 * relid's record goes, if slim_am (slimheap) keeps one: relid changes its
 * access method in place between heap and slimheap (slimheap.release() and
 * adopt(): as heap it may store short rows into the same file, the INSERT
 * ... SELECT quirk of docs/narrow-slot.md), or is dropped.  Waits for the
 * record table's lock if it must.
 */
void
slim_full_files_forget(Oid relid, Oid slim_am)
{
	Relation	files;
	Oid			pkey;
	HeapTuple	tuple;

	files = slim_full_files_open(slim_am, RowExclusiveLock, NULL, &pkey);
	if (files == NULL)
		return;
	tuple = slim_full_files_fetch(files, pkey, relid);
	if (tuple != NULL)
	{
		CatalogTupleDelete(files, &tuple->t_self);
		heap_freetuple(tuple);
	}
	relation_close(files, NoLock);
}

/*
 * relation_set_new_filelocator: heap's, then the record of the new file
 * (freezeXid and minmulti are heap's to set)
 */
void
slim_relation_set_new_file(Relation rel, const SlimFileLocator *newloc,
						   char persistence, TransactionId *freezeXid,
						   MultiXactId *minmulti)
{
	slim_heap_routine->slim_routine_set_new_file(rel, newloc, persistence,
												 freezeXid, minmulti);
	slim_full_files_created(rel, slim_locator_spc(newloc),
							slim_locator_num(newloc));
}

/* relation_copy_data (SET TABLESPACE): heap's, then the record moves */
void
slim_relation_copy_data(Relation rel, const SlimFileLocator *newloc)
{
	slim_heap_routine->relation_copy_data(rel, newloc);
	slim_full_files_copied(rel, slim_locator_spc(newloc),
						   slim_locator_num(newloc));
}

/*
 * slim_full_files_hold() at a narrow table's first scan: does its record
 * name its file and natts as they are now?  The answer is kept in the
 * cached facts, which every change of either frees (with the relcache
 * entry's invalidation), so the next scans read it there.
 */
bool
slim_full_files_look_up(Relation rel)
{
	SlimFullFile found;
	bool		holds;
	SlimRelInfo *info;

	if (!slim_full_files_lookup(rel, &found))
		return false;
	/* the lookup's locks may have had rel, and its facts, built again */
	holds = slim_full_file_names(&found, rel);
	/* the cached facts are the relcache's, in its memory, not const */
	info = (SlimRelInfo *) slim_get_relinfo(rel);
	info->full_rows = holds ? SLIM_FULL_ROWS_YES : SLIM_FULL_ROWS_NO;
	return holds;
}

/*
 * A table or materialized view is dropped: its record goes, so that the
 * table stays as small as the database's narrow tables, whatever OID and
 * file number a later table gets.
 */
static void
slim_full_files_dropped(Oid relid)
{
	HeapTuple	tuple;
	Form_pg_class form;
	Oid			amoid = InvalidOid;

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		return;
	form = (Form_pg_class) GETSTRUCT(tuple);
	/*
	 * Not a rewrite's transient table, which wrote its record for the table
	 * it rewrote (or, not holding that table's lock, as 19's REPACK
	 * CONCURRENTLY does not, kept one under its own OID, which no table's
	 * file matches once the transient is gone): dropped with every
	 * VACUUM FULL, it would cost the lookup of this table each time.
	 */
	if ((form->relkind == RELKIND_RELATION ||
		 form->relkind == RELKIND_MATVIEW) &&
		form->relpersistence != RELPERSISTENCE_TEMP &&
		!OidIsValid(form->relrewrite) &&
		slim_options_am_is_slimheap(form->relam))
		amoid = form->relam;
	ReleaseSysCache(tuple);
	if (OidIsValid(amoid))
		slim_full_files_forget(relid, amoid);
}
