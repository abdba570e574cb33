/*-------------------------------------------------------------------------
 *
 * slim_progress.c
 *	  What slimheap's long passes over a table have done so far, in shared
 *	  memory, for the view slimheap.progress (src/inspect/slim_progress_view.c).
 *
 * A backend's one core progress slot (pg_stat_progress_*) belongs to the
 * command it runs: VACUUM's, CREATE INDEX's.  The passes slimheap adds to
 * them (the re-layout after VACUUM, before an index build) and its own
 * procedures (compact) report here instead, one entry a backend.  The
 * entry ends with its pass, with an abort, or with the backend.  Without
 * the library in shared_preload_libraries nothing is reported.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_progress.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"

#include "slimheap.h"

typedef struct SlimProgressTable
{
	LWLock	   *lock;
	int			nentries;
	SlimProgressEntry entries[FLEXIBLE_ARRAY_MEMBER];
} SlimProgressTable;

static SlimProgressTable *slim_progress_table = NULL;
static SlimProgressEntry *slim_my_progress = NULL;	/* while reporting */
static bool slim_progress_hooked = false;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static Size
slim_progress_size(void)
{
	return add_size(offsetof(SlimProgressTable, entries),
					mul_size(MaxBackends, sizeof(SlimProgressEntry)));
}

static void
slim_progress_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(slim_progress_size());
	RequestNamedLWLockTranche("slimheap_progress", 1);
}

static void
slim_progress_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	slim_progress_table = ShmemInitStruct("slimheap progress",
										  slim_progress_size(), &found);
	if (!found)
	{
		slim_progress_table->lock =
			&GetNamedLWLockTranche("slimheap_progress")->lock;
		slim_progress_table->nentries = MaxBackends;
		memset(slim_progress_table->entries, 0,
			   MaxBackends * sizeof(SlimProgressEntry));
	}
	LWLockRelease(AddinShmemInitLock);
}

/* an abort ends the pass that reported */
static void
slim_progress_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		slim_progress_end();
}

static void
slim_progress_at_exit(int code, Datum arg)
{
	slim_progress_end();
}

/* from _PG_init(): the entries exist only when preloading */
void
slim_progress_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = slim_progress_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = slim_progress_startup;
	RegisterXactCallback(slim_progress_xact_callback, NULL);
}

/*
 * Start reporting a pass of command over relid, of pages_total pages (0:
 * not known yet).  A pass started while another reports (VACUUM's
 * re-layout inside compact's, say) is counted in the outer one.
 */
void
slim_progress_start(SlimProgressCommand command, Oid relid,
					int64 pages_total)
{
	int			i;

	if (slim_progress_table == NULL || slim_my_progress != NULL)
		return;
	if (!slim_progress_hooked)
	{
		before_shmem_exit(slim_progress_at_exit, (Datum) 0);
		slim_progress_hooked = true;
	}
	LWLockAcquire(slim_progress_table->lock, LW_EXCLUSIVE);
	for (i = 0; i < slim_progress_table->nentries; i++)
	{
		SlimProgressEntry *e = &slim_progress_table->entries[i];

		if (e->pid != 0)
			continue;
		memset(e, 0, sizeof(*e));
		e->pid = MyProcPid;
		e->dbid = MyDatabaseId;
		e->roleid = GetUserId();
		e->relid = relid;
		e->command = command;
		e->phase = SLIM_PHASE_RELAYING;
		e->pages_total = pages_total;
		slim_my_progress = e;
		break;
	}
	LWLockRelease(slim_progress_table->lock);
}

/* the phase of this backend's pass, and its pages, if it reports */
void
slim_progress_phase(SlimProgressPhase phase, int64 pages_total)
{
	if (slim_my_progress == NULL)
		return;
	LWLockAcquire(slim_progress_table->lock, LW_EXCLUSIVE);
	slim_my_progress->phase = phase;
	if (pages_total >= 0)
		slim_my_progress->pages_total = pages_total;
	LWLockRelease(slim_progress_table->lock);
}

/* a page done: rows re-laid on it, and the bytes their forms saved */
void
slim_progress_page(int64 rows_relaid, int64 bytes_saved)
{
	if (slim_my_progress == NULL)
		return;
	LWLockAcquire(slim_progress_table->lock, LW_EXCLUSIVE);
	slim_my_progress->pages_done++;
	slim_my_progress->rows_relaid += rows_relaid;
	slim_my_progress->bytes_saved += bytes_saved;
	LWLockRelease(slim_progress_table->lock);
}

/* pages counted as done without a look (compact going on from a position) */
void
slim_progress_pages_done(int64 pages)
{
	if (slim_my_progress == NULL)
		return;
	LWLockAcquire(slim_progress_table->lock, LW_EXCLUSIVE);
	slim_my_progress->pages_done += pages;
	LWLockRelease(slim_progress_table->lock);
}

/* rows stored again (an index build's moves) */
void
slim_progress_moved(int64 rows)
{
	if (slim_my_progress == NULL)
		return;
	LWLockAcquire(slim_progress_table->lock, LW_EXCLUSIVE);
	slim_my_progress->rows_moved += rows;
	LWLockRelease(slim_progress_table->lock);
}

void
slim_progress_end(void)
{
	if (slim_my_progress == NULL)
		return;
	LWLockAcquire(slim_progress_table->lock, LW_EXCLUSIVE);
	slim_my_progress->pid = 0;
	LWLockRelease(slim_progress_table->lock);
	slim_my_progress = NULL;
}

/*
 * A copy of every entry of database dbid, in the caller's memory context;
 * *n: how many.
 */
SlimProgressEntry *
slim_progress_entries(Oid dbid, int *n)
{
	SlimProgressEntry *copy;
	int			i;

	*n = 0;
	if (slim_progress_table == NULL)
		return NULL;
	copy = palloc(slim_progress_table->nentries * sizeof(SlimProgressEntry));
	LWLockAcquire(slim_progress_table->lock, LW_SHARED);
	for (i = 0; i < slim_progress_table->nentries; i++)
	{
		SlimProgressEntry *e = &slim_progress_table->entries[i];

		if (e->pid != 0 && e->dbid == dbid)
			copy[(*n)++] = *e;
	}
	LWLockRelease(slim_progress_table->lock);
	return copy;
}
