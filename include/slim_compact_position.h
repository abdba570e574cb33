/*-------------------------------------------------------------------------
 *
 * slim_compact_position.h
 *	  Where CALL slimheap.compact() stopped, kept on disk for the next call
 *	  (slim_compact_position.c).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_compact_position.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_COMPACT_POSITION_H
#define SLIM_COMPACT_POSITION_H

#include "nodes/pg_list.h"
#include "storage/block.h"
#include "utils/rel.h"

/* slim_compact_position.c */
extern uint32 slim_compact_form_key(Relation rel);
extern BlockNumber slim_compact_position_read(Relation rel, uint32 form_key,
											  List **pinned);
extern void slim_compact_position_write(Relation rel, uint32 form_key,
										BlockNumber next, List *pinned);
extern void slim_compact_position_forget(Oid relid);
extern void slim_compact_position_sweep(void);

#endif							/* SLIM_COMPACT_POSITION_H */
