/*-------------------------------------------------------------------------
 *
 * slim_index_turns.c
 *	  The lock with which the index builds of one slimheap table take
 *	  turns, where they must.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_index_turns.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/lock.h"
#include "utils/inval.h"
#include "utils/rel.h"

#include "slim_index.h"

/*
 * Plain builds on one table may run side by side (ShareLock), and each
 * assumes that nobody writes the table meanwhile; moves do.  So a plain
 * build that may move rows holds this lock of the table until its
 * transaction ends, and such builds take turns: the next one's scan sees
 * the rows moved, and its moves reach the finished index.  The updates of
 * slimheap.index_columns after builds take turns with it too
 * (slim_index_columns.c).
 */
void
slim_index_lock_moves(Relation rel)
{
	LOCKTAG		tag;

	tag.locktag_field1 = MyDatabaseId;
	tag.locktag_field2 = RelationGetRelid(rel);
	tag.locktag_field3 = 0x534C;	/* "SL" */
	tag.locktag_field4 = 0;
	tag.locktag_type = LOCKTAG_USERLOCK;
	tag.locktag_lockmethodid = DEFAULT_LOCKMETHOD;
	if (LockAcquire(&tag, ExclusiveLock, false, false) == LOCKACQUIRE_OK)
		AcceptInvalidationMessages();	/* the indexes the last one built */
}
