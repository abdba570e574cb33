/*-------------------------------------------------------------------------
 *
 * slim_verify_state.c
 *	  The state slimheap.verify() keeps while it checks a table, and the
 *	  report of one problem.
 *
 * verify() reports into a result set; the stats and page_items functions
 * use the same state without one, to learn the first problem of a tuple
 * before they deform it (slim_verify_checker()).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/inspect/slim_verify_state.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

#include "slimheap.h"
#include "slim_verify.h"

/* the columns of verify()'s result: block, offset, problem */
#define SLIM_VERIFY_COLUMNS		3

/*
 * Report one problem at the current position.  A state without a result set
 * (slim_verify_checker()) keeps the first problem of the tuple instead.
 */
void
slim_verify_report(SlimVerifyState *st, const char *fmt,...)
{
	Datum		values[SLIM_VERIFY_COLUMNS];
	bool		nulls[SLIM_VERIFY_COLUMNS] = {false, false, false};
	StringInfoData msg;

	if (st->tupstore == NULL && st->problem != NULL)
		return;

	initStringInfo(&msg);
	for (;;)
	{
		va_list		args;
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&msg, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&msg, needed);
	}
	if (st->tupstore == NULL)
	{
		st->problem = msg.data;
		return;
	}

	values[0] = Int64GetDatum((int64) st->blkno);
	if (OffsetNumberIsValid(st->offnum))
		values[1] = Int32GetDatum((int32) st->offnum);
	else
		nulls[1] = true;
	values[2] = CStringGetTextDatum(msg.data);
	tuplestore_putvalues(st->tupstore, st->retdesc, values, nulls);
	pfree(msg.data);
}

/* set st up to check rows of rel */
void
slim_verify_prepare(SlimVerifyState *st, Relation rel)
{
	TupleDesc	tupdesc = RelationGetDescr(rel);
	int			n;

	st->rel = rel;
	st->tupdesc = tupdesc;
	st->relnatts = tupdesc->natts;
	st->toastrelid = rel->rd_rel->reltoastrelid;
	st->is_slimheap = slim_is_slimheap_relation(rel);
	st->isnull = palloc0(Max(st->relnatts, 1) * sizeof(bool));
	st->values = palloc0(Max(st->relnatts, 1) * sizeof(Datum));
	st->positions = palloc0(Max(st->relnatts, 1) * sizeof(int16));
	st->ordered = palloc0(Max(st->relnatts, 1) * sizeof(int16));

	/* the writers' own rule (slim_truncate.c), for every stored natts */
	st->any_missing = slim_missing_floor(tupdesc) > 0;
	st->floor_below = palloc0((st->relnatts + 1) * sizeof(int));
	if (st->any_missing)
	{
		for (n = 1; n <= st->relnatts; n++)
			st->floor_below[n] = slim_missing_floor_upto(tupdesc, n);
	}
}

/*
 * For the functions that read rows from shared buffers before they deform
 * them (stats(), estimate()): a state that checks one tuple at a time with
 * verify()'s rules.
 */
SlimVerifyState *
slim_verify_checker(Relation rel)
{
	SlimVerifyState *st = palloc0(sizeof(SlimVerifyState));

	slim_verify_prepare(st, rel);
	return st;
}
