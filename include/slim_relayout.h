/*-------------------------------------------------------------------------
 *
 * slim_relayout.h
 *	  Re-laying out a relation's rows in place on their pages
 *	  (slim_relayout.c); the page write and its WAL record are the WAL
 *	  layer's (slim_wal.h).
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

#include "nodes/bitmapset.h"
#include "nodes/pg_list.h"
#include "storage/block.h"
#include "utils/rel.h"

/* slim_relayout.c */
extern bool slim_relayout_possible(Relation rel);
extern bool slim_relayout_any_wanted(Relation rel, const Bitmapset *attrs,
									 bool whole_row, int last);
extern bool slim_relayout_table(Relation rel, const Bitmapset *attrs,
								bool whole_row, int last, uint64 *relaid);
extern void slim_relayout_tails(Relation rel, const List *only,
								BlockNumber start, BlockNumber end,
								List **short_of_room, List **pinned,
								uint64 *relaid);
extern void slim_relayout_compact(Relation rel, BlockNumber start,
								  BlockNumber end, const uint8 *only,
								  void (*per_block) (BlockNumber), List **skipped,
								  uint64 *relaid);

#endif							/* SLIM_RELAYOUT_H */
