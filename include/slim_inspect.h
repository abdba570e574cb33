/*-------------------------------------------------------------------------
 *
 * slim_inspect.h
 *	  What the SQL functions of the extension share: opening the relation
 *	  they are given, and the helpers of their output.
 *
 *	slimheap.stats()		slim_stats.c
 *	slimheap.estimate()		slim_estimate.c
 *	slimheap.advise()		inspect/slim_advise.c
 *	slimheap.page_items()	slim_page_items.c
 *	slimheap.verify()		slim_verify.c
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_inspect.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_INSPECT_H
#define SLIM_INSPECT_H

#include "access/htup_details.h"
#include "fmgr.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/rel.h"
#include "utils/snapshot.h"

struct SlimVerifyState;

/*
 * Which relations an inspection function accepts.
 */
typedef enum SlimInspectTarget
{
	SLIM_TARGET_SLIMHEAP,		/* slimheap tables only */
	SLIM_TARGET_HEAP_TUPLES		/* any table that stores heap tuples */
} SlimInspectTarget;

/*
 * One page read by stats() or estimate(): a private copy, and which of its
 * rows the snapshot sees.  Rows are read from the copy, after verify()'s
 * checks (slim_inspect_row()), so no buffer lock is held meanwhile.
 */
typedef enum SlimItemState
{
	SLIM_ITEM_NO_ROW,			/* not LP_NORMAL */
	SLIM_ITEM_LIVE,				/* visible to the snapshot */
	SLIM_ITEM_DEAD				/* not visible to it */
} SlimItemState;

typedef struct SlimInspectPage
{
	PGAlignedBlock copy;
	BlockNumber blkno;
	bool		is_new;			/* never initialized: no items, all free */
	OffsetNumber maxoff;
	/* a SlimItemState for each offset */
	uint8		items[MaxHeapTuplesPerPage + 1];
} SlimInspectPage;

/*
 * What slim_estimate_relation() projects (slim_estimate.c): the arrays are
 * indexed by SlimNullBitmap (full, truncate, compress).
 */
#define SLIM_ESTIMATE_NMODES	3

typedef struct SlimEstimateResult
{
	int64		sampled_rows;	/* live rows read */
	int64		sampled_pages;	/* blocks read */
	bool		full_scan;		/* every block was read */
	int64		total_rows;		/* live rows, counted or scaled */
	int64		current_bytes;	/* the main fork now */
	int64		toasted_rows[SLIM_ESTIMATE_NMODES];
	int64		projected_pages[SLIM_ESTIMATE_NMODES];
} SlimEstimateResult;

extern int64 slim_estimate_sample_arg(FunctionCallInfo fcinfo, int argno);
extern void slim_estimate_relation(Relation rel, int64 sample_rows,
								   SlimEstimateResult *res);
extern const char *slim_estimate_mode_name(int m);

/* slim_packer.c: simulated pages, for estimate() */
/*
 * The pages of a relation filled the way heap_insert() fills them when a
 * table rewrite (ALTER TABLE, including SET ACCESS METHOD) inserts rows in a
 * row with a bulk-insert state and without the free space map: each row goes
 * to the current last page if that page has room for it plus the fillfactor
 * reserve, otherwise to a new page (see RelationGetBufferForTuple()).
 */
typedef struct SlimPacker
{
	Size		save_free;		/* fillfactor reserve per page */
	int64		pages;			/* pages started */
	Size		lower;			/* pd_lower of the last page */
	Size		upper;			/* pd_upper of the last page */
	int			nitems;			/* line pointers on the last page */
} SlimPacker;

extern void slim_packer_add(SlimPacker *p, Size len);
extern double slim_packer_fractional_pages(const SlimPacker *p);

/* slim_advise_list.c: what advise() reads, locked without waiting */
extern Oid *slim_advise_list_tables(Datum schemas_arg, bool all_schemas,
									int *ntables);
extern bool slim_advise_lock(Oid relid, List **indexes);
extern void slim_advise_unlock(Oid relid, List *indexes);

/* slim_inspect_common.c: opening the relation, reading its pages */
extern Relation slim_open_relation_oid(Oid relid, LOCKMODE lockmode);
extern Relation slim_inspect_open(Oid relid, const char *funcname,
								  SlimInspectTarget target);
extern void slim_inspect_require_superuser(const char *funcname);
extern void slim_inspect_check_recovery(Relation rel);
extern void slim_inspect_read_page(Relation rel, BlockNumber blkno,
								   BufferAccessStrategy strategy,
								   Snapshot snapshot, SlimInspectPage *page);
extern HeapTupleHeader slim_inspect_row(struct SlimVerifyState *checker,
										SlimInspectPage *page,
										OffsetNumber off, Size *len);
extern Datum slim_percent(int64 part, int64 whole, bool *isnull);
extern Snapshot slim_inspect_snapshot(void);
extern Oid	slim_inspect_relid_arg(FunctionCallInfo fcinfo, int argno,
								   const char *funcname);

#endif							/* SLIM_INSPECT_H */
