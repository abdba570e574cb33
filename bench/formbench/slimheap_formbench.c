/*-------------------------------------------------------------------------
 *
 * slimheap_formbench.c
 *	  Benchmark W7 (bench/README of the project: ../shared/WORKLOADS.md):
 *	  the CPU cost of forming a tuple, heap's heap_form_tuple() against
 *	  slimheap's former, in a tight form-then-free loop over prepared values.
 *
 * This module is NOT part of the slimheap extension.  bench/run.sh builds it
 * next to this file and declares its function in the throwaway benchmark
 * cluster only, with CREATE FUNCTION ... AS '<absolute path of the .so>'.
 * It compiles the extension's own src/slim_truncate.c into itself (and links
 * with -Bsymbolic, so that calls bind to that copy and not to the one of the
 * preloaded slimheap.so), which makes the figures those of the source tree
 * the benchmark was built from.
 *
 * The prepared rows have the shapes of the SQL workloads of bench/run.sh:
 *	 w1			800 nullable int4; the first 50 set, the rest NULL
 *	 w2_all		5 nullable int4, all set
 *	 w2_first	5 nullable int4, only the first set
 *	 w2_notnull 5 int4 declared NOT NULL, all set
 *	 w4			int4 id, then 800 nullable columns c1..c800 whose type
 *				cycles int4, float8, bool, text (c1 int4, c2 float8, c3 bool,
 *				c4 text, ...); 40 columns set at random positions
 *	 w5			like w4, the set columns in 3 random contiguous groups of
 *				10 to 20 columns
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "slim_format.h"
#include "slim_tail.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(formbench);

/*
 * Rows with random NULL patterns come from a pool this large (a power of
 * two), so that the loop sees varying patterns, as an INSERT would, and
 * not one pattern the branch predictor learns by heart.
 */
#define POOL_SIZE	256

typedef enum Former
{
	FORMER_HEAP,				/* heap_form_tuple() */
	FORMER_SLIMHEAP,			/* slim_form_tuple(), "truncate" mode */
	FORMER_COMPRESS				/* slim_form_tuple(), "compress" mode, with
								 * the prefix a table of the pool's shape
								 * keeps: the key and the free attributes */
} Former;

typedef struct RowPool
{
	TupleDesc	tupdesc;
	Datum	   *values[POOL_SIZE];
	bool	   *isnull[POOL_SIZE];
} RowPool;

/* a small deterministic generator (splitmix64): the same rows every run */
static uint64
next_random(uint64 *state)
{
	uint64		z = (*state += UINT64CONST(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64CONST(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static int
random_below(uint64 *state, int n)
{
	return (int) (next_random(state) % (uint64) n);
}

/* type of column c<j> (1-based) in the wide mixed tables of W4 and W5 */
static Oid
mixed_column_type(int j)
{
	switch (j % 4)
	{
		case 1:
			return INT4OID;
		case 2:
			return FLOAT8OID;
		case 3:
			return BOOLOID;
		default:
			return TEXTOID;
	}
}

/* the value bench/run.sh stores in column c<j> of row g of W4 and W5 */
static Datum
mixed_column_value(int j, int g)
{
	switch (j % 4)
	{
		case 1:
			return Int32GetDatum(g + j);
		case 2:
			return Float8GetDatum((g + j) * 0.5);
		case 3:
			return BoolGetDatum((g + j) % 2 == 0);
		default:
			return PointerGetDatum(cstring_to_text(psprintf("v%d_%d", g, j)));
	}
}

static TupleDesc
int4_tupdesc(int natts, bool notnull)
{
	TupleDesc	tupdesc = CreateTemplateTupleDesc(natts);
	int			i;

	for (i = 1; i <= natts; i++)
	{
		TupleDescInitEntry(tupdesc, i, psprintf("c%d", i), INT4OID,
								  -1, 0);
		TupleDescAttr(tupdesc, i - 1)->attnotnull = notnull;
	}
	return tupdesc;
}

static TupleDesc
mixed_tupdesc(void)
{
	TupleDesc	tupdesc = CreateTemplateTupleDesc(801);
	int			j;

	TupleDescInitEntry(tupdesc, 1, "id", INT4OID, -1, 0);
	TupleDescAttr(tupdesc, 0)->attnotnull = true;
	for (j = 1; j <= 800; j++)
		TupleDescInitEntry(tupdesc, j + 1, psprintf("c%d", j),
								  mixed_column_type(j), -1, 0);
	return tupdesc;
}

/*
 * Fill the pool with rows of the int4 workloads: columns 1..nset set,
 * the others NULL.
 */
static void
fill_int4_rows(RowPool *pool, int nset)
{
	int			natts = pool->tupdesc->natts;
	int			r;
	int			i;

	for (r = 0; r < POOL_SIZE; r++)
	{
		pool->values[r] = palloc0(natts * sizeof(Datum));
		pool->isnull[r] = palloc(natts * sizeof(bool));
		for (i = 0; i < natts; i++)
		{
			pool->isnull[r][i] = i >= nset;
			if (i < nset)
				pool->values[r][i] = Int32GetDatum(r + i + 1);
		}
	}
}

/*
 * Fill the pool with rows of W4 (40 columns at random positions) or W5
 * (3 contiguous groups of 10 to 20 columns, one in each third of the row).
 */
static void
fill_mixed_rows(RowPool *pool, bool grouped)
{
	uint64		state = 20240601;
	int			r;

	for (r = 0; r < POOL_SIZE; r++)
	{
		Datum	   *values = palloc0(801 * sizeof(Datum));
		bool	   *isnull = palloc(801 * sizeof(bool));
		int			g = r + 1;
		int			j;

		memset(isnull, true, 801 * sizeof(bool));
		values[0] = Int32GetDatum(g);
		isnull[0] = false;

		if (!grouped)
		{
			int			nset = 0;

			while (nset < 40)
			{
				j = 1 + random_below(&state, 800);
				if (isnull[j])
				{
					isnull[j] = false;
					nset++;
				}
			}
		}
		else
		{
			int			k;

			for (k = 0; k < 3; k++)
			{
				int			len = 10 + random_below(&state, 11);
				int			start = 1 + k * 266 + random_below(&state, 266 - len);

				for (j = start; j < start + len; j++)
					isnull[j] = false;
			}
		}

		for (j = 1; j <= 800; j++)
		{
			if (!isnull[j])
				values[j] = mixed_column_value(j, g);
		}
		pool->values[r] = values;
		pool->isnull[r] = isnull;
	}
}

static void
build_pool(RowPool *pool, const char *workload)
{
	if (strcmp(workload, "w1") == 0)
	{
		pool->tupdesc = int4_tupdesc(800, false);
		fill_int4_rows(pool, 50);
	}
	else if (strcmp(workload, "w2_all") == 0)
	{
		pool->tupdesc = int4_tupdesc(5, false);
		fill_int4_rows(pool, 5);
	}
	else if (strcmp(workload, "w2_first") == 0)
	{
		pool->tupdesc = int4_tupdesc(5, false);
		fill_int4_rows(pool, 1);
	}
	else if (strcmp(workload, "w2_notnull") == 0)
	{
		pool->tupdesc = int4_tupdesc(5, true);
		fill_int4_rows(pool, 5);
	}
	else if (strcmp(workload, "w4") == 0)
	{
		pool->tupdesc = mixed_tupdesc();
		fill_mixed_rows(pool, false);
	}
	else if (strcmp(workload, "w5") == 0)
	{
		pool->tupdesc = mixed_tupdesc();
		fill_mixed_rows(pool, true);
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown workload \"%s\"", workload),
				 errhint("Valid workloads are w1, w2_all, w2_first, w2_notnull, w4 and w5.")));
}

static Former
parse_former(const char *name)
{
	if (strcmp(name, "heap") == 0)
		return FORMER_HEAP;
	if (strcmp(name, "slimheap") == 0)
		return FORMER_SLIMHEAP;
	if (strcmp(name, "compress") == 0)
		return FORMER_COMPRESS;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown former \"%s\"", name),
			 errhint("Valid formers are heap, slimheap and compress.")));
	return FORMER_HEAP;			/* keep the compiler quiet */
}

/*
 * The result is consumed here so that no call in the loop is dead code; the
 * formers live in other translation units (heap_form_tuple in the server,
 * slim_form_tuple in slim_truncate.o), so the compiler cannot see through them
 * anyway, and the tuples are really freed, as an INSERT would free them.
 */
static volatile uint64 formbench_sink;

static uint64
run_loop(RowPool *pool, Former former, int64 iterations)
{
	uint64		bytes = 0;
	int64		i;

	for (i = 0; i < iterations; i++)
	{
		int			r = (int) (i & (POOL_SIZE - 1));
		HeapTuple	tuple;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();

		if (former == FORMER_HEAP)
			tuple = heap_form_tuple(pool->tupdesc, pool->values[r],
									pool->isnull[r]);
		else if (former == FORMER_SLIMHEAP)
			tuple = slim_form_tuple(pool->tupdesc, pool->values[r],
									pool->isnull[r],
									SLIM_NULL_BITMAP_TRUNCATE, 0, 0);
		else
			tuple = slim_form_tuple(pool->tupdesc, pool->values[r],
									pool->isnull[r],
									SLIM_NULL_BITMAP_COMPRESS, 0,
									Min(pool->tupdesc->natts,
										Max(1, SLIM_FREE_PREFIX_NATTS)));
		bytes += tuple->t_len;
		heap_freetuple(tuple);
	}
	return bytes;
}

/*
 * formbench(workload text, iterations int8, former text,
 *			 OUT ns_per_tuple float8, OUT bytes_per_tuple float8)
 *
 * Forms and frees `iterations` tuples of the workload's shape with the
 * given former and returns the wall-clock nanoseconds per tuple and the
 * average t_len of the tuples formed.
 */
Datum
formbench(PG_FUNCTION_ARGS)
{
	char	   *workload = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int64		iterations = PG_GETARG_INT64(1);
	Former		former = parse_former(text_to_cstring(PG_GETARG_TEXT_PP(2)));
	MemoryContext benchcxt;
	MemoryContext oldcxt;
	RowPool		pool;
	instr_time	start;
	instr_time	elapsed;
	uint64		bytes;
	TupleDesc	resultdesc;
	Datum		result[2];
	bool		resultnull[2] = {false, false};

	if (iterations < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("iterations must be at least 1")));
	if (get_call_result_type(fcinfo, NULL, &resultdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("formbench must be declared with OUT parameters")));

	/* one context for the pool and the tuples, dropped at the end */
	benchcxt = AllocSetContextCreate(CurrentMemoryContext, "formbench",
									 ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(benchcxt);

	build_pool(&pool, workload);

	INSTR_TIME_SET_CURRENT(start);
	bytes = run_loop(&pool, former, iterations);
	INSTR_TIME_SET_CURRENT(elapsed);
	INSTR_TIME_SUBTRACT(elapsed, start);
	formbench_sink += bytes;

	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(benchcxt);

	result[0] = Float8GetDatum(INSTR_TIME_GET_DOUBLE(elapsed) * 1e9 /
							   (double) iterations);
	result[1] = Float8GetDatum((double) bytes / (double) iterations);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(resultdesc),
													  result, resultnull)));
}
