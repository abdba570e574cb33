/*-------------------------------------------------------------------------
 *
 * slim_inspect.h
 *	  What the SQL functions of the extension share: opening the relation
 *	  they are given, and the helpers of their output.
 *
 *	slimheap.stats()		slim_stats.c
 *	slimheap.estimate()		slim_estimate.c
 *	slimheap.page_items()	slim_page_items.c
 *	slimheap.verify()		slim_verify.c
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_INSPECT_H
#define SLIM_INSPECT_H

#include "utils/rel.h"
#include "utils/snapshot.h"

/*
 * Which relations an inspection function accepts.
 */
typedef enum SlimInspectTarget
{
	SLIM_TARGET_SLIMHEAP,		/* slimheap tables only */
	SLIM_TARGET_HEAP_TUPLES		/* any table that stores heap tuples */
} SlimInspectTarget;

extern Relation slim_open_relation_oid(Oid relid, LOCKMODE lockmode);
extern Relation slim_inspect_open(Oid relid, const char *funcname,
								  SlimInspectTarget target);
extern Datum slim_percent(int64 part, int64 whole, bool *isnull);
extern Snapshot slim_inspect_snapshot(void);

#endif							/* SLIM_INSPECT_H */
