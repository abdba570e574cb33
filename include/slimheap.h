/*-------------------------------------------------------------------------
 *
 * slimheap.h
 *	  Shared declarations of the slimheap table access method.
 *
 * slimheap stores rows in heap's page format and reuses heap's code for
 * everything but the forming of tuples: rows are written with a shorter NULL
 * bitmap (or none) when their trailing attributes are NULL.  Its own slot
 * type forms rows in that form and hands copies out in heap's full form.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slimheap.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIMHEAP_H
#define SLIMHEAP_H

#include "access/htup.h"
#include "access/tableam.h"
#include "access/tupdesc.h"
#include "executor/tuptable.h"
#include "utils/rel.h"

#include "slim_compat.h"
#include "slim_format.h"
#include "slim_options.h"

/*
 * Does a narrow table's file hold no short row, by its record in
 * slimheap.full_row_files (slim_full_files.c)?  Unknown until its first
 * scan looks it up.
 */
typedef enum SlimFullRows
{
	SLIM_FULL_ROWS_NO = 0,
	SLIM_FULL_ROWS_YES,
	SLIM_FULL_ROWS_UNKNOWN
} SlimFullRows;

/*
 * What the write paths need to know of a relation, cached in rd_amcache
 * (one palloc'd chunk in CacheMemoryContext, freed by the relcache on
 * invalidation).
 */
typedef struct SlimRelInfo
{
	SlimOptions options;

	/*
	 * Rows of this relation keep at least this many attributes (invariant
	 * T1): the highest attribute number whose column has a non-NULL "missing"
	 * value (atthasmissing), so that a stored NULL is never read back as the
	 * column's fast default.  0 when no column has one.
	 */
	int			missing_floor;

	/*
	 * compress: the prefix floor of rows (invariant C1, rule R of
	 * docs/row-floor.md: fast defaults, prefix_columns and the free
	 * attributes in every row, what the indexes and the replica identity
	 * read where the row holds a value); no_tail_floor when no row may have
	 * a tail (REPLICA IDENTITY FULL, logically logged, or another mode).
	 */
	const SlimFloor *prefix_floor;

	/*
	 * The same for rows that are never decoded, whatever the WAL level:
	 * those a rewrite (CLUSTER, VACUUM FULL, REPACK) copies, which heap's
	 * rewrite logs as pages, not as inserts (invariant C3 applies to rows
	 * heap logs for logical decoding only).
	 */
	const SlimFloor *rewrite_prefix_floor;

	/* every attribute in the prefix: natts, no Need past it */
	const SlimFloor *no_tail_floor;

	/*
	 * A rewrite's transient table (not pg_repack's copy): its rows need
	 * store only missing_floor attributes, whatever descriptor the slot
	 * that hands them over has (the old table's, whose defaults the
	 * rewrite clears: docs/fast-defaults.md, revision 3, 6).
	 */
	bool		rewrite_target;

	/*
	 * The executor reads a new row's values back: an index, a trigger, a
	 * NOT NULL or CHECK constraint (slim_slot_keep_values()).
	 */
	bool		reads_values;

	/*
	 * A table of at most SLIM_NARROW_NATTS attributes (dropped ones
	 * included): its NULL bitmap fits the padding after heap's header, so
	 * every mode stores heap's full form (options.null_bitmap says full) and
	 * its slots are heap's own (docs/narrow-slot.md).
	 */
	bool		narrow;

	/*
	 * What a narrow table's record says of its file as the relcache has it
	 * now (file and natts change only with an invalidation, which frees
	 * these facts), looked up at its first scan (slim_full_files.c), not
	 * before: a write must not read a table.
	 */
	SlimFullRows full_rows;
} SlimRelInfo;

/*
 * slim_slot_ops.c: one ops table per mode, indexed by SlimNullBitmap.  Only
 * this library reads it: hidden, it is addressed relative to the code, not
 * through the GOT, in the callbacks that run for every row.
 */
extern SLIM_HIDDEN const TupleTableSlotOps SlimTTSOps[3];

#define SlimTTSOpsFull		(SlimTTSOps[SLIM_NULL_BITMAP_FULL])
#define SlimTTSOpsTruncate	(SlimTTSOps[SLIM_NULL_BITMAP_TRUNCATE])
#define SlimTTSOpsCompress	(SlimTTSOps[SLIM_NULL_BITMAP_COMPRESS])

/* one comparison, for every row read or written */
#define TTS_IS_SLIMHEAP(slot) \
	((uintptr_t) (slot)->tts_ops - (uintptr_t) SlimTTSOps < sizeof(SlimTTSOps))

extern const TupleTableSlotOps *slim_slot_ops(Relation rel,
											 const SlimRelInfo *info);

/* slim_slot.c: what the write paths ask of a slot */
extern PGDLLIMPORT uint64 slim_rows_formed;
extern HeapTuple slim_slot_fit(TupleTableSlot *slot, const SlimRelInfo *info);
extern void slim_slot_lend_stored(TupleTableSlot *slot, bool lend);

/* slim_heap_borrow.c: heap's index-build scans run with heap's routine */
extern const TableAmRoutine *slim_borrow_heap_routine(Relation rel);
extern void slim_return_heap_routine(Relation rel, const TableAmRoutine *own);
extern void slim_heap_borrow_init(void);

/* slim_index_build.c */
extern void slim_index_build_init(void);

/* slim_alter_warn.c: an ALTER TABLE that takes savings away says so */
extern Oid	slim_alter_warn_before(Node *parsetree, int *prefix_base);
extern void slim_alter_warn_after(Oid relid, int prefix_base);

/* slim_identity.c: REPLICA IDENTITY FULL re-lays tail rows */
extern Oid	slim_identity_before_alter(Node *parsetree, bool *was_full);
extern void slim_identity_after_alter(Oid relid, bool was_full);

/* slim_am_switch.c: a table's access method changed in the catalog */
extern void slim_switch_lock(List *relids, int64 wait_ms, const char *verb);
extern void slim_switch_relam(Oid relid, Oid new_am);
extern int64 slim_switch_wait_ms(Interval *wait);

/* slim_floor_registry.c: attributes of indexes about to be built */
extern void slim_floor_registry_init(void);
extern bool slim_floor_registry_available(void);
extern void slim_floor_register(Oid relid, const Bitmapset *attrs);
extern void slim_floor_unregister(void);
extern Bitmapset *slim_floor_registered(Oid relid);

/* slim_progress.c: slimheap.progress, what its passes have done so far */
typedef enum SlimProgressCommand
{
	SLIM_PROGRESS_COMPACT,		/* CALL slimheap.compact() */
	SLIM_PROGRESS_VACUUM,		/* VACUUM's re-layout of changed pages */
	SLIM_PROGRESS_INDEX,		/* an index build's re-layout and moves */
	SLIM_PROGRESS_RELEASE		/* CALL slimheap.release() */
} SlimProgressCommand;

typedef enum SlimProgressPhase
{
	SLIM_PHASE_WAITING,			/* for the writers with the old floor */
	SLIM_PHASE_RELAYING,		/* re-laying rows out in place */
	SLIM_PHASE_MOVING,			/* storing again rows that did not fit */
	SLIM_PHASE_PINNED,			/* compact: pages that were pinned, again */
	SLIM_PHASE_OLD_SNAPSHOTS	/* release: for the snapshots that see old
								 * versions with a tail */
} SlimProgressPhase;

typedef struct SlimProgressEntry
{
	int			pid;			/* 0: free */
	Oid			dbid;
	Oid			roleid;
	Oid			relid;
	SlimProgressCommand command;
	SlimProgressPhase phase;
	int64		pages_total;
	int64		pages_done;
	int64		rows_relaid;
	int64		rows_moved;
	int64		bytes_saved;	/* negative: the re-laid rows grew */
} SlimProgressEntry;

extern void slim_progress_init(void);
extern void slim_progress_start(SlimProgressCommand command, Oid relid,
								int64 pages_total);
extern void slim_progress_phase(SlimProgressPhase phase, int64 pages_total);
extern void slim_progress_page(int64 rows_relaid, int64 bytes_saved);
extern void slim_progress_pages_done(int64 pages);
extern void slim_progress_moved(int64 rows);
extern void slim_progress_end(void);
extern SlimProgressEntry *slim_progress_entries(Oid dbid, int *n);

/* slim_catalog_version.c */
extern bool slim_catalog_current(void);
extern bool slim_tail_may_end_with_nulls(void);

/* slim_full_files.c: the record that a narrow table's file has no short row */
extern void slim_full_files_init(void);
extern bool slim_full_files_enabled(void);
extern bool slim_full_files_record(Relation rel);
extern void slim_full_files_created(Relation rel, Oid spcoid, Oid relfilenode);
extern void slim_full_files_copied(Relation rel, Oid spcoid, Oid relfilenode);
extern void slim_full_files_forget(Oid relid, Oid slim_am);
extern bool slim_full_files_look_up(Relation rel);

/* slim_relinfo.c */
extern Oid	slim_rewrite_source_oid(Relation rel);
extern void slim_relinfo_set_building(Relation rel, const Bitmapset *attrs);
extern void slim_relinfo_forget_building(void);
extern const SlimRelInfo *slim_build_relinfo(Relation rel);
extern Bitmapset *slim_index_attr_bitmap(Relation rel);
extern int	slim_index_natts(Relation rel);
extern int	slim_rewrite_floor(Relation source, Relation rel,
							   const SlimOptions *opts);
extern const SlimFloor *slim_compress_prefix_floor(Relation rel,
												   Relation source,
												   const SlimOptions *opts,
												   int missing_floor,
												   bool decoded,
												   const Bitmapset *building);

/* the relcache keeps it in rd_amcache until the entry is invalidated */
static inline const SlimRelInfo *
slim_get_relinfo(Relation rel)
{
	if (likely(rel->rd_amcache != NULL))
		return (const SlimRelInfo *) rel->rd_amcache;
	return slim_build_relinfo(rel);
}

/* does rel's file hold no short row, by its record (slim_full_files.c)? */
static inline bool
slim_full_files_hold(Relation rel)
{
	SlimFullRows full_rows = slim_get_relinfo(rel)->full_rows;

	if (likely(full_rows != SLIM_FULL_ROWS_UNKNOWN))
		return full_rows == SLIM_FULL_ROWS_YES;
	return slim_full_files_look_up(rel);
}

/* slim_routine.c: heap's routine, and the routine slimheap_am.c made */
/*
 * slim_heap_routine is the one way every file reaches heap's callbacks,
 * set by slim_routine_init() before anything runs.  Hidden: the read
 * callbacks load it for every row, and a symbol of the library's own
 * needs no GOT entry.
 */
extern SLIM_HIDDEN const TableAmRoutine *slim_heap_routine;
extern void slim_routine_init(const TableAmRoutine *routine);
extern const TableAmRoutine *slim_get_routine(void);
extern bool slim_is_slimheap_relation(Relation rel);

#endif							/* SLIMHEAP_H */
