/*-------------------------------------------------------------------------
 *
 * slim_index.h
 *	  Index builds over rows with compressed tails: the builder
 *	  (slim_index_build.c) and the mover of rows (slim_index_move.c).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_index.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_INDEX_H
#define SLIM_INDEX_H

#include "access/htup.h"
#include "executor/execdesc.h"
#include "nodes/bitmapset.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/rel.h"

/*
 * Stores rows again with the relation's current prefix floor, as UPDATEs
 * of the same values would (heap_update() through slimheap's tuple_update,
 * then the entries of every index ready for inserts), firing no triggers.
 */
typedef struct SlimMover
{
	Relation	rel;
	EState	   *estate;
	ResultRelInfo *result_rel;
	TupleTableSlot *slot;		/* the row to store, slimheap's slot */
	TupleTableSlot *fetched;	/* a newer version of it */
	Bitmapset  *attrs;			/* what the table's indexes read */
	bool		whole_row;
	Snapshot	crosscheck;		/* a transaction snapshot, or InvalidSnapshot */
	uint64		moved;
} SlimMover;

/* slim_index_move.c: storing rows again, as UPDATEs of the same values */
extern SlimMover *slim_mover_begin(Relation rel, Oid building);
extern void slim_mover_end(SlimMover *mv);
extern void slim_move_row(SlimMover *mv, ItemPointer tid,
						  const Datum *values, const bool *isnull);
extern void slim_move_refuse(Relation rel, ItemPointer tid);
extern int	slim_sandbox_begin(Relation rel, Oid *save_userid,
							   int *save_sec_context);
extern void slim_sandbox_end(int nestlevel, Oid save_userid,
							 int save_sec_context);
extern uint64 slim_move_row_at(Relation rel, ItemPointer tid,
							   const Bitmapset *attrs, bool whole_row);
extern void slim_move_hidden_rows(Relation rel, Oid building,
								  const Bitmapset *building_attrs,
								  int building_last);
extern void slim_rewrite_table(Oid relid);

/* slim_index_fresh.c: CREATE INDEX on a table new in this transaction */
extern void slim_index_before_create(Node *parsetree, const char *queryString);
extern Bitmapset *slim_index_stmt_attrs(Oid relid, IndexStmt *stmt,
										const char *queryString);
extern int	slim_attrs_last(const Bitmapset *attrs, int natts,
							bool *whole_row);

/* slim_index_columns.c: slimheap.index_columns, kept and read */
extern void slim_index_columns_note(Relation rel, const Bitmapset *attrs);
extern void slim_index_columns_forget(void);
extern void slim_index_columns_subxact(bool aborted, SubTransactionId subid,
									   SubTransactionId parent);
extern void slim_index_columns_merge(Oid relid, const Bitmapset *attrs);
extern void slim_index_columns_record(void);
extern void slim_index_columns_after_alter(Node *parsetree);

/* slim_index_turns.c: the builds of one table taking turns */
extern void slim_index_lock_moves(Relation rel);

/* slim_index_cic.c: CREATE INDEX CONCURRENTLY, its rows obeying R first */
extern bool slim_index_cic_before(Node *parsetree, const char *queryString,
								  ProcessUtilityContext context);
extern void slim_index_cic_after(bool done);

/* slim_index_stmt.c: the statements around builds */
extern bool slim_index_in_ddl(void);
extern bool slim_index_in_concurrent_ddl(void);
extern bool slim_index_in_reindex(void);
extern void slim_index_note_pending(Relation rel, double hidden_share);
extern void slim_index_stmt_init(void);

#endif							/* SLIM_INDEX_H */
