/*-------------------------------------------------------------------------
 *
 * slim_verify.h
 *	  The state slimheap.verify() keeps while it checks a table, shared by
 *	  the page and header checks (slim_verify.c) and the walk over a row's
 *	  values, compressed tail included (slim_verify_values.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_VERIFY_H
#define SLIM_VERIFY_H

#include "access/htup_details.h"
#include "storage/block.h"
#include "storage/bufpage.h"
#include "storage/off.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

/* What we remember of each item of the page being checked. */
typedef struct VerifyItem
{
	bool		sound;			/* header and attributes passed every check */
	int			natts;			/* attributes it stores, when sound */
} VerifyItem;

typedef struct VerifyState
{
	Relation	rel;
	TupleDesc	tupdesc;
	int			relnatts;
	Oid			toastrelid;
	bool		is_slimheap;	/* else heap: no row has a compressed tail */

	/*
	 * floor_below[n], for n in 0..relnatts: the highest attribute number <= n
	 * whose column currently has a non-NULL missing value (a fast default),
	 * or 0.
	 */
	int		   *floor_below;
	bool		any_missing;

	/* scratch for one row: relnatts entries each */
	bool	   *isnull;
	Datum	   *values;
	int16	   *positions;		/* attribute numbers (0-based) of values */
	int16	   *ordered;		/* the same in a tail's store order */

	/* output; without a tupstore, the first problem of a tuple */
	Tuplestorestate *tupstore;
	TupleDesc	retdesc;
	char	   *problem;

	/* position being checked */
	BlockNumber blkno;
	OffsetNumber offnum;		/* InvalidOffsetNumber for the page itself */

	/* the private copy of the current page */
	PGAlignedBlock page;
	VerifyItem	items[MaxHeapTuplesPerPage + 1];
} VerifyState;

/* slim_verify.c */
extern void verify_report(VerifyState *st, const char *fmt,...)
			pg_attribute_printf(2, 3);
extern VerifyState *slim_verify_checker(Relation rel);
extern const char *slim_verify_tuple(VerifyState *st, HeapTupleHeader tup,
									 Size tuplen);

/* slim_verify_values.c */
extern bool verify_row_values(VerifyState *st, HeapTupleHeader tup,
							  Size tuplen, int *stored_natts);

#endif							/* SLIM_VERIFY_H */
