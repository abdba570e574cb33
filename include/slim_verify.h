/*-------------------------------------------------------------------------
 *
 * slim_verify.h
 *	  The state slimheap.verify() keeps while it checks a table (made and
 *	  reported into by slim_verify_state.c), shared by the page checks
 *	  (slim_verify.c) and the checks of one tuple (slim_verify_values.c).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_verify.h
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
typedef struct SlimVerifyItem
{
	bool		sound;			/* header and attributes passed every check */
	int			natts;			/* attributes it stores, when sound */
} SlimVerifyItem;

typedef struct SlimVerifyState
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
	SlimVerifyItem	items[MaxHeapTuplesPerPage + 1];
} SlimVerifyState;

/* slim_verify_state.c */
extern void slim_verify_prepare(SlimVerifyState *st, Relation rel);
extern void slim_verify_report(SlimVerifyState *st, const char *fmt,...)
			pg_attribute_printf(2, 3);
extern SlimVerifyState *slim_verify_checker(Relation rel);

/* slim_verify_values.c: one tuple's header and values */
extern bool slim_verify_row(SlimVerifyState *st, HeapTupleHeader tup,
							Size tuplen, int *natts);
extern const char *slim_verify_tuple(SlimVerifyState *st, HeapTupleHeader tup,
									 Size tuplen);

#endif							/* SLIM_VERIFY_H */
