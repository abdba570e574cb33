/*-------------------------------------------------------------------------
 *
 * slim_toast_am.c
 *	  The access method of a slimheap table's TOAST table: heap's.
 *
 * The toaster stores TOAST rows with heap_insert() whatever the table's
 * access method, so they are heap's rows.  With heap's access method the
 * TOAST table is one that amcheck's verify_heapam(), pgstattuple and
 * pg_surgery accept; heap's own callback would give it the parent's.
 *
 * Tables created before this kept slimheap TOAST tables, and they keep
 * them: VACUUM FULL and CLUSTER swap the old and new TOAST tables by
 * content, access method included (swap_relation_files()), and refuse a
 * pair of different ones, because a TOAST table has no dependency on its
 * access method to move.  So the new heap of a rewrite gets the TOAST access
 * method of the table it replaces when that one is slimheap's.  A dump and
 * restore, or pg_upgrade, creates the TOAST tables anew, with heap's.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_toast_am.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "slim_am.h"
#include "slimheap.h"

/*
 * The TOAST table of relation relid and that TOAST table's access method,
 * or InvalidOid for both.
 */
Oid
slim_toast_of(Oid relid, Oid *toast_am)
{
	HeapTuple	tuple;
	Oid			toastrelid = InvalidOid;

	*toast_am = InvalidOid;
	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (HeapTupleIsValid(tuple))
	{
		toastrelid = ((Form_pg_class) GETSTRUCT(tuple))->reltoastrelid;
		ReleaseSysCache(tuple);
	}
	if (!OidIsValid(toastrelid))
		return InvalidOid;

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(toastrelid));
	if (!HeapTupleIsValid(tuple))
		return InvalidOid;
	*toast_am = ((Form_pg_class) GETSTRUCT(tuple))->relam;
	ReleaseSysCache(tuple);
	return toastrelid;
}

/*
 * relation_toast_am callback.  The new heap of a rewrite is told by its
 * name (slim_rewrite_source_oid()).
 */
Oid
slim_relation_toast_am(Relation rel)
{
	Oid			source = slim_rewrite_source_oid(rel);
	Oid			old_toast_am;

	if (!OidIsValid(source))
		return HEAP_TABLE_AM_OID;

	/* an older TOAST table of slimheap's is swapped with one of the same */
	if (OidIsValid(slim_toast_of(source, &old_toast_am)) &&
		old_toast_am == rel->rd_rel->relam)
		return old_toast_am;
	return HEAP_TABLE_AM_OID;
}
