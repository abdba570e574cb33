/*-------------------------------------------------------------------------
 *
 * slim_compat.h
 *	  What differs between the PostgreSQL versions slimheap builds against
 *	  (15 to 18; tested on 15, 17 and 18), each difference guarded once,
 *	  here.
 *
 * The code calls the slim_* names below and never tests versions itself.
 * The exceptions are callbacks whose own parameter lists changed, guarded
 * where each is defined: tuple_update (TU_UpdateIndexes from 16 on,
 * slim_am_write.c, and its caller slim_index_move.c, with
 * ExecInsertIndexTuples' onlySummarizing; cluster_rel taking the relation
 * in 18; RestrictSearchPath from 17), scan_bitmap_next_tuple (18, slim_am_read.c), and the
 * slot's copy_minimal_tuple (`extra`, 18) and is_current_xact_tuple (new
 * in 17) in slim_slot.c.
 *
 * Most of the table AM changes between 15 and 18 need no guard at all,
 * because slimheap takes those callbacks from heap's routine as they are:
 * relation_set_new_filenode becoming relation_set_new_filelocator (16),
 * relation_copy_data taking a RelFileLocator (16), scan_analyze_next_block
 * taking a ReadStream (17), the bitmap scan callbacks (18).  CompactAttribute
 * (18) is a cache beside pg_attribute's form; TupleDescAttr() still returns
 * the full attribute in 18, which is all slimheap reads.  docs/versions.md
 * lists every difference and what was done about it.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_compat.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_COMPAT_H
#define SLIM_COMPAT_H

#include "access/genam.h"
#include "access/hio.h"
#include "access/htup_details.h"
#include "access/tupdesc.h"

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 190000
#error "slimheap supports PostgreSQL 15 to 18 (README.md, docs/versions.md)"
#endif

/*
 * Fill in the composite-datum fields of a tuple header being formed (length,
 * type, typmod), as heap_form_tuple() does.
 *
 * PostgreSQL 15.20 added heap_tuple_set_datum(), which also marks the
 * header as a datum and stores the version of a versioned row type; a tuple
 * formed without it on such a server would lack what the server's own
 * formers write.  15.0 to 15.19 and 18 do not have the function, so the
 * Makefile looks for it in the installed access/htup_details.h and defines
 * SLIM_HAVE_HEAP_TUPLE_SET_DATUM when it is declared there (a minor version
 * number cannot tell: the function is in 15.20 but not in 18.6).
 *
 * natts must already be set in the header: heap_tuple_set_datum() reads it.
 */
#ifdef SLIM_HAVE_HEAP_TUPLE_SET_DATUM
#define slim_tuple_set_datum(td, tupdesc, len) \
	heap_tuple_set_datum((td), (tupdesc), (len))
#else
static inline void
slim_tuple_set_datum(HeapTupleHeader td, TupleDesc tupdesc, uint32 len)
{
	HeapTupleHeaderSetDatumLength(td, len);
	HeapTupleHeaderSetTypeId(td, tupdesc->tdtypeid);
	HeapTupleHeaderSetTypMod(td, tupdesc->tdtypmod);
	/* as heap_form_tuple(): t_ctid is invalid unless explicitly set */
	ItemPointerSetInvalid(&td->t_ctid);
}
#endif

/*
 * Minimal tuples with room in front: PostgreSQL 18 lets callers of
 * copy_minimal_tuple ask for `extra` zeroed bytes before the tuple (hash
 * aggregation keeps its own header there).  Before 18 there is no such
 * room, and callers pass 0.
 */
#if PG_VERSION_NUM >= 180000
#define slim_minimal_tuple_from_heap_tuple(tuple, extra) \
	minimal_tuple_from_heap_tuple((tuple), (extra))
#define slim_heap_form_minimal_tuple(tupdesc, values, isnull, extra) \
	heap_form_minimal_tuple((tupdesc), (values), (isnull), (extra))
#else
#define slim_minimal_tuple_from_heap_tuple(tuple, extra) \
	(AssertMacro((extra) == 0), minimal_tuple_from_heap_tuple(tuple))
#define slim_heap_form_minimal_tuple(tupdesc, values, isnull, extra) \
	(AssertMacro((extra) == 0), heap_form_minimal_tuple((tupdesc), (values), (isnull)))
#endif

/*
 * Extend a relation by what a load needs, not more.  From 16 on, heap
 * extends a relation in bulk for a load with a bulk-insert state (COPY,
 * CREATE TABLE AS): each extension at least as large as all earlier ones of
 * the load together, up to 64 pages, so a load ends with up to 63 pages
 * extended and never used (issue 16, docs/versions.md).  slimheap's files
 * are smaller, so that tail weighs more on them; forgetting what the load
 * extended so far makes each extension what the rows at hand need (more
 * waiters on the extension lock still make it larger).  15 extends a page
 * at a time.
 */
#if PG_VERSION_NUM >= 160000
#define slim_extend_as_needed(bistate) \
	do { \
		if ((bistate) != NULL) \
			(bistate)->already_extended_by = 0; \
	} while (0)
#else
#define slim_extend_as_needed(bistate)	((void) (bistate))
#endif

/*
 * index_beginscan() without instrumentation: PostgreSQL 18 added an
 * IndexScanInstrumentation argument (for EXPLAIN's index search counts),
 * which internal scans such as CLUSTER's pass as NULL.
 */
#if PG_VERSION_NUM >= 180000
#define slim_index_beginscan(heap, index, snapshot, nkeys, norderbys) \
	index_beginscan((heap), (index), (snapshot), NULL, (nkeys), (norderbys))
#else
#define slim_index_beginscan(heap, index, snapshot, nkeys, norderbys) \
	index_beginscan((heap), (index), (snapshot), (nkeys), (norderbys))
#endif

/*
 * Whether role owns relation relid (or is a superuser): one function per
 * object class before 16, object_ownercheck() from 16 on.  For callers
 * that include utils/acl.h.
 */
#if PG_VERSION_NUM >= 160000
#define slim_relation_ownercheck(relid, role) \
	object_ownercheck(RelationRelationId, (relid), (role))
#else
#define slim_relation_ownercheck(relid, role) \
	pg_class_ownercheck((relid), (role))
#endif

/*
 * Whether relation rel got its storage in the current transaction: created
 * (CREATE INDEX), or given a new file (REINDEX).  16 renamed the field of
 * the new file.
 */
#if PG_VERSION_NUM >= 160000
#define slim_storage_is_new(rel) \
	((rel)->rd_createSubid != InvalidSubTransactionId || \
	 (rel)->rd_firstRelfilelocatorSubid != InvalidSubTransactionId)
#else
#define slim_storage_is_new(rel) \
	((rel)->rd_createSubid != InvalidSubTransactionId || \
	 (rel)->rd_firstRelfilenodeSubid != InvalidSubTransactionId)
#endif

/*
 * Infinite intervals ('infinity', '-infinity') exist from PostgreSQL 17 on;
 * before, every interval is finite.  For callers that include
 * datatype/timestamp.h.
 */
#if PG_VERSION_NUM >= 170000
#define slim_interval_is_infinite(iv)	INTERVAL_NOT_FINITE(iv)
#define slim_interval_is_negative_infinity(iv)	INTERVAL_IS_NOBEGIN(iv)
#else
#define slim_interval_is_infinite(iv)	((void) (iv), false)
#define slim_interval_is_negative_infinity(iv)	((void) (iv), false)
#endif

#endif							/* SLIM_COMPAT_H */
