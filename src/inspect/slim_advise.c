/*-------------------------------------------------------------------------
 *
 * slim_advise.c
 *	  slimheap.advise(min_saved_bytes, sample_rows, schemas, progress_after):
 *	  the tables of the current database worth converting to slimheap (or
 *	  to another slimheap mode), ranked by the bytes a rewrite would save,
 *	  with the statement that converts each and a rough rewrite time.
 *
 * Every figure comes from slim_estimate_relation(), the code behind
 * slimheap.estimate(), on the same sample: advise() is estimate() run over
 * every table the caller may read, and agrees with it to the byte.  Each
 * table costs a sample of sample_rows rows whatever its size.
 *
 * A table is left out, never an error that stops the report, when the
 * caller may not SELECT from it, when it is locked by someone else (no
 * waiting: the report goes on), or when reading it fails (a damaged page:
 * a WARNING names it).  Tables of other access methods, TOAST tables,
 * catalogs and other sessions' temporary tables are not looked at;
 * partitioned tables have no rows of their own and appear as their
 * partitions.  The list of tables and the locks are slim_advise_list.c.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/inspect/slim_advise.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/relation.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "slim_compat.h"
#include "slimheap.h"
#include "slim_inspect.h"

PG_FUNCTION_INFO_V1(slimheap_advise);

/*
 * The rough rate of a rewrite (ALTER TABLE ... SET ACCESS METHOD, VACUUM
 * FULL): bytes of the old table, the new table and its rebuilt indexes
 * handled per second.  Measured on W1 and W4 on the 2-core test machine
 * (docs/inspect.md); a guide to the order of magnitude, not a promise.
 */
#define SLIM_REWRITE_BYTES_PER_SEC	(64.0 * 1024 * 1024)

/* what advise() found out about one table */
typedef struct SlimAdvice
{
	Oid			relid;
	char	   *nspname;
	char	   *relname;
	char		relkind;
	bool		is_slimheap;
	SlimNullBitmap current;		/* a slimheap table's mode */
	SlimNullBitmap best;		/* the smallest projection */
	int64		index_bytes;
	SlimEstimateResult est;
} SlimAdvice;

/* the mode with the smallest projection; ties go to the current, then truncate */
static SlimNullBitmap
slim_advise_best(const SlimAdvice *a)
{
	static const SlimNullBitmap order[] = {
		SLIM_NULL_BITMAP_TRUNCATE, SLIM_NULL_BITMAP_COMPRESS,
		SLIM_NULL_BITMAP_FULL
	};
	SlimNullBitmap best = a->is_slimheap ? a->current : SLIM_NULL_BITMAP_TRUNCATE;
	int			i;

	for (i = 0; i < lengthof(order); i++)
	{
		if (a->est.projected_pages[order[i]] < a->est.projected_pages[best])
			best = order[i];
	}
	return best;
}

/* the bytes of the table's indexes, which a rewrite builds again */
static int64
slim_advise_index_bytes(Relation rel)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	int64		bytes = 0;

	foreach(lc, indexes)
	{
		Relation	index = try_relation_open(lfirst_oid(lc), AccessShareLock);

		if (index == NULL)
			continue;
		bytes += (int64) RelationGetNumberOfBlocks(index) * BLCKSZ;
		relation_close(index, AccessShareLock);
	}
	list_free(indexes);
	return bytes;
}

/*
 * Read one table, already locked, into *a.  Returns false, and says why
 * when it matters, for a table advise() leaves out.
 */
static bool
slim_advise_read(SlimAdvice *a, int64 sample_rows)
{
	Relation	rel;
	SlimOptions opts;

	/* dropped since it was listed; or not of an access method we read */
	rel = try_relation_open(a->relid, NoLock);
	if (rel == NULL)
		return false;
	a->is_slimheap = slim_is_slimheap_relation(rel);
	if (!a->is_slimheap && rel->rd_tableam != slim_heap_routine)
	{
		relation_close(rel, NoLock);
		return false;
	}
	a->nspname = get_namespace_name(RelationGetNamespace(rel));
	a->relname = pstrdup(RelationGetRelationName(rel));
	a->relkind = rel->rd_rel->relkind;
	relation_close(rel, NoLock);

	rel = slim_inspect_open(a->relid, "advise", SLIM_TARGET_HEAP_TUPLES);
	slim_read_options(a->relid, &opts);
	a->current = opts.null_bitmap;
	a->index_bytes = slim_advise_index_bytes(rel);
	slim_estimate_relation(rel, sample_rows, &a->est);
	relation_close(rel, AccessShareLock);
	a->best = slim_advise_best(a);
	return true;
}

/*
 * Read one table in a subtransaction of its own: an error (a damaged page,
 * an unlogged table on a standby) becomes a WARNING and leaves the table
 * out.  A cancel stops the whole report, as it should.
 */
static bool
slim_advise_read_guarded(SlimAdvice *a, int64 sample_rows)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	bool		ok = false;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		ok = slim_advise_read(a, sample_rows);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED ||
			edata->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN)
			ReThrowError(edata);
		ereport(WARNING,
				(errcode(edata->sqlerrcode),
				 errmsg("slimheap.advise() skips \"%s\": %s",
						a->relname ? a->relname : get_rel_name(a->relid),
						edata->message),
				 edata->detail ? errdetail_internal("%s", edata->detail) : 0,
				 errhint("slimheap.estimate() on that table shows the error alone.")));
		FreeErrorData(edata);
		ok = false;
	}
	PG_END_TRY();
	return ok;
}

/* the bytes a table has in its current layout after a rewrite */
static int64
slim_advise_baseline(const SlimAdvice *a)
{
	SlimNullBitmap current = a->is_slimheap ? a->current : SLIM_NULL_BITMAP_FULL;

	return a->est.projected_pages[current] * BLCKSZ;
}

static int64
slim_advise_saved(const SlimAdvice *a)
{
	return slim_advise_baseline(a) - a->est.projected_pages[a->best] * BLCKSZ;
}

/* most saved first; then by name, so that the order is stable */
static int
slim_advise_cmp(const void *pa, const void *pb)
{
	const SlimAdvice *a = (const SlimAdvice *) pa;
	const SlimAdvice *b = (const SlimAdvice *) pb;
	int64		sa = slim_advise_saved(a);
	int64		sb = slim_advise_saved(b);
	int			c;

	if (sa != sb)
		return sa > sb ? -1 : 1;
	c = strcmp(a->nspname, b->nspname);
	return c != 0 ? c : strcmp(a->relname, b->relname);
}

/*
 * What converts the table: NULL when nothing would be saved.  A table is
 * adopted (catalog only) and compacted (online), a slimheap table in
 * another mode given the mode and compacted; extnsp: the extension's
 * schema, quoted.  A materialized view, which adopt() does not take, is
 * rewritten.
 */
static char *
slim_advise_statement(const SlimAdvice *a, const char *extnsp)
{
	const char *name = quote_qualified_identifier(a->nspname, a->relname);
	const char *literal = quote_literal_cstr(name);
	const char *mode = slim_estimate_mode_name(a->best);

	if (slim_advise_saved(a) <= 0)
		return NULL;
	if (a->relkind == RELKIND_MATVIEW)
		return a->is_slimheap ?
			psprintf("ALTER MATERIALIZED VIEW %s SET (slimheap.null_bitmap = %s); REFRESH MATERIALIZED VIEW %s;",
					 name, mode, name) :
			psprintf("ALTER MATERIALIZED VIEW %s SET ACCESS METHOD slimheap, SET (slimheap.null_bitmap = %s);",
					 name, mode);
	if (!a->is_slimheap)
		return psprintf("CALL %s.adopt(%s, '%s'); CALL %s.compact(%s);",
						extnsp, literal, mode, extnsp, literal);
	return psprintf("ALTER TABLE %s SET (slimheap.null_bitmap = %s); CALL %s.compact(%s);",
					name, mode, extnsp, literal);
}

static void
slim_advise_put(ReturnSetInfo *rsinfo, const SlimAdvice *a,
				const char *extnsp)
{
	Datum		values[15];
	bool		nulls[15];
	int64		saved = slim_advise_saved(a);
	int64		best_bytes = a->est.projected_pages[a->best] * BLCKSZ;
	Interval   *rewrite = palloc0(sizeof(Interval));
	char	   *statement = slim_advise_statement(a, extnsp);
	int			i = 0;
	int			m;

	rewrite->time = (TimeOffset)
		((a->est.current_bytes + best_bytes + a->index_bytes) /
		 SLIM_REWRITE_BYTES_PER_SEC * USECS_PER_SEC);

	memset(nulls, 0, sizeof(nulls));
	values[i++] = ObjectIdGetDatum(a->relid);
	values[i++] = CStringGetTextDatum(a->is_slimheap ? "slimheap" : "heap");
	if (a->is_slimheap)
		values[i] = CStringGetTextDatum(slim_estimate_mode_name(a->current));
	else
		nulls[i] = true;
	i++;
	values[i++] = CStringGetTextDatum(slim_estimate_mode_name(a->best));
	values[i++] = Int64GetDatum(a->est.current_bytes);
	for (m = 0; m < SLIM_ESTIMATE_NMODES; m++)
		values[i++] = Int64GetDatum(a->est.projected_pages[m] * BLCKSZ);
	values[i++] = Int64GetDatum(saved);
	values[i] = slim_percent(saved, slim_advise_baseline(a), &nulls[i]);
	i++;
	values[i++] = Int64GetDatum(a->est.sampled_rows);
	values[i++] = Int64GetDatum(a->est.total_rows);
	values[i++] = BoolGetDatum(a->est.full_scan);
	values[i++] = IntervalPGetDatum(rewrite);
	if (statement != NULL)
		values[i] = CStringGetTextDatum(statement);
	else
		nulls[i] = true;
	i++;
	Assert(i == lengthof(values));
	if (rsinfo->setDesc->natts != lengthof(values))
		elog(ERROR, "slimheap.advise() is declared with %d columns, expected %d",
			 rsinfo->setDesc->natts, (int) lengthof(values));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * Microseconds of the progress_after interval: a threshold for the time
 * since the start, so a value past what int64 holds, or an infinite one
 * (PostgreSQL 17 and later), means "never"; a negative one is below zero
 * (the caller refuses it).
 */
static int64
slim_progress_usecs(const Interval *iv)
{
	int64		days;
	int64		usecs;

	if (slim_interval_is_infinite(iv))
		return slim_interval_is_negative_infinity(iv) ? PG_INT64_MIN : PG_INT64_MAX;
	if (pg_mul_s64_overflow((int64) iv->month, DAYS_PER_MONTH, &days) ||
		pg_add_s64_overflow(days, (int64) iv->day, &days) ||
		pg_mul_s64_overflow(days, USECS_PER_DAY, &usecs) ||
		pg_add_s64_overflow(usecs, iv->time, &usecs))
	{
		/* past int64 either way: the sign of the whole decides */
		double		total = ((double) iv->month * DAYS_PER_MONTH + iv->day) *
			USECS_PER_DAY + (double) iv->time;

		return total < 0 ? PG_INT64_MIN : PG_INT64_MAX;
	}
	return usecs;
}

Datum
slimheap_advise(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int64		min_saved = PG_ARGISNULL(0) ? 0 : PG_GETARG_INT64(0);
	int64		sample_rows = slim_estimate_sample_arg(fcinfo, 1);
	int64		progress_after = PG_ARGISNULL(3) ? PG_INT64_MAX :
		slim_progress_usecs(PG_GETARG_INTERVAL_P(3));
	TimestampTz start = GetCurrentTimestamp();
	MemoryContext table_cxt;
	Oid		   *relids;
	int			ntables;
	SlimAdvice *advice;
	int			nadvice = 0;
	int			denied = 0;
	int			t;
	const char *extnsp;

	if (min_saved < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("min_saved_bytes must not be negative"),
				 errhint("Pass 0 to list every table, also those that would save nothing.")));
	if (progress_after < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("progress_after must not be negative"),
				 errhint("Pass '0 s' for a notice before every table, or NULL for none.")));

	InitMaterializedSRF(fcinfo, 0);
	relids = slim_advise_list_tables(PG_GETARG_DATUM(2), PG_ARGISNULL(2),
									 &ntables);
	advice = palloc0(Max(ntables, 1) * sizeof(SlimAdvice));
	table_cxt = AllocSetContextCreate(CurrentMemoryContext,
									  "slimheap advise table",
									  ALLOCSET_DEFAULT_SIZES);

	for (t = 0; t < ntables; t++)
	{
		SlimAdvice *a = &advice[nadvice];
		Oid			relid = relids[t];
		MemoryContext old_cxt;
		bool		dropped = false;
		List	   *locked_indexes;
		bool		ok;

		CHECK_FOR_INTERRUPTS();

		/* only what the caller may read */
		if (pg_class_aclcheck_ext(relid, GetUserId(), ACL_SELECT,
								  &dropped) != ACLCHECK_OK || dropped)
		{
			denied++;
			continue;
		}
		/* never wait for a lock: the rest of the report would wait too */
		if (!slim_advise_lock(relid, &locked_indexes))
			continue;

		if (GetCurrentTimestamp() - start >= progress_after)
		{
			char	   *name = get_rel_name(relid);
			char	   *nsp = get_namespace_name(get_rel_namespace(relid));

			ereport(NOTICE,
					(errmsg("slimheap.advise(): table %d of %d: %s",
							t + 1, ntables,
							name && nsp ? quote_qualified_identifier(nsp, name) : "?"),
					 errdetail("%.1f s since the start.",
							   (double) (GetCurrentTimestamp() - start) / USECS_PER_SEC)));
		}

		a->relid = relid;
		a->nspname = a->relname = NULL;
		old_cxt = MemoryContextSwitchTo(table_cxt);
		ok = slim_advise_read_guarded(a, sample_rows);
		MemoryContextSwitchTo(old_cxt);
		slim_advise_unlock(relid, locked_indexes);
		if (ok)
		{
			/* keep the names; everything else the read made goes */
			a->nspname = pstrdup(a->nspname);
			a->relname = pstrdup(a->relname);
			nadvice++;
		}
		MemoryContextReset(table_cxt);
	}
	MemoryContextDelete(table_cxt);

	if (denied > 0)
		ereport(NOTICE,
				(errmsg_plural("slimheap.advise() skipped %d table the current role may not read",
							   "slimheap.advise() skipped %d tables the current role may not read",
							   denied, denied),
				 errhint("It reads the tables on which the role has the SELECT privilege.")));

	qsort(advice, nadvice, sizeof(SlimAdvice), slim_advise_cmp);
	extnsp = quote_identifier(get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid)));
	for (t = 0; t < nadvice; t++)
	{
		if (slim_advise_saved(&advice[t]) >= min_saved)
			slim_advise_put(rsinfo, &advice[t], extnsp);
	}
	PG_RETURN_VOID();
}
