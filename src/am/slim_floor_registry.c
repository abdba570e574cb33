/*-------------------------------------------------------------------------
 *
 * slim_floor_registry.c
 *	  Attributes an index about to be built reads, registered in shared
 *	  memory so that every backend's rows of the table keep them in their
 *	  prefix (rule R, docs/row-floor.md §8) before the index enters the
 *	  catalog.
 *
 * CREATE INDEX CONCURRENTLY commits the new index to the catalog while
 * writers run; from then on heap_update() counts its columns for HOT and
 * for the key-lock mode, and reads them from every old row's prefix.  A
 * row whose compressed tail hides such a value would be decided on a
 * value heap does not see.  slim_index_cic.c registers the index's
 * attributes here first; slim_build_relinfo() adds them to the table's
 * prefix floor in every backend that builds its cached facts afterwards.
 *
 * An entry belongs to the backend that made it and is removed when its
 * statement ends, or when the backend exits; a server restart starts
 * with none.  An entry left behind only widens the floor.  Without the
 * library in shared_preload_libraries there is no registry, and the
 * callers do without it.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/am/slim_floor_registry.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/sysattr.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/shmem.h"
#include "storage/lwlock.h"

#include "slimheap.h"

/* bits for every attribute as pull_varattnos() offsets them */
#define SLIM_REGISTRY_NBITS \
	(MaxHeapAttributeNumber - FirstLowInvalidHeapAttributeNumber + 1)

typedef struct SlimFloorEntry
{
	int			pid;			/* 0: free */
	Oid			dbid;
	Oid			relid;
	uint8		attrs[(SLIM_REGISTRY_NBITS + 7) / 8];
} SlimFloorEntry;

typedef struct SlimFloorRegistry
{
	LWLock	   *lock;
	pg_atomic_uint32 nused;		/* entries in use: 0 lets readers skip */
	int			nentries;
	SlimFloorEntry entries[FLEXIBLE_ARRAY_MEMBER];
} SlimFloorRegistry;

static SlimFloorRegistry *slim_registry = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
static bool slim_registry_exit_hooked = false;

static Size
slim_registry_size(void)
{
	/* a backend registers one build at a time */
	return add_size(offsetof(SlimFloorRegistry, entries),
					mul_size(MaxBackends, sizeof(SlimFloorEntry)));
}

static void
slim_registry_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(slim_registry_size());
	RequestNamedLWLockTranche("slimheap_floor_registry", 1);
}

static void
slim_registry_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	slim_registry = ShmemInitStruct("slimheap floor registry",
									slim_registry_size(), &found);
	if (!found)
	{
		slim_registry->lock =
			&GetNamedLWLockTranche("slimheap_floor_registry")->lock;
		pg_atomic_init_u32(&slim_registry->nused, 0);
		slim_registry->nentries = MaxBackends;
		memset(slim_registry->entries, 0,
			   MaxBackends * sizeof(SlimFloorEntry));
	}
	LWLockRelease(AddinShmemInitLock);
}

/* from _PG_init(): the registry exists only when preloading */
void
slim_floor_registry_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = slim_registry_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = slim_registry_startup;
}

bool
slim_floor_registry_available(void)
{
	return slim_registry != NULL;
}

/* remove this backend's entry, if any */
void
slim_floor_unregister(void)
{
	int			i;

	if (slim_registry == NULL)
		return;
	LWLockAcquire(slim_registry->lock, LW_EXCLUSIVE);
	for (i = 0; i < slim_registry->nentries; i++)
	{
		SlimFloorEntry *e = &slim_registry->entries[i];

		if (e->pid == MyProcPid)
		{
			e->pid = 0;
			pg_atomic_sub_fetch_u32(&slim_registry->nused, 1);
		}
	}
	LWLockRelease(slim_registry->lock);
}

static void
slim_floor_unregister_at_exit(int code, Datum arg)
{
	slim_floor_unregister();
}

/*
 * Register attrs (offset as pull_varattnos() offsets them) for relid in
 * this database, replacing this backend's earlier entry.
 */
void
slim_floor_register(Oid relid, const Bitmapset *attrs)
{
	SlimFloorEntry entry;
	int			x = -1;
	int			i;
	bool		stored = false;

	Assert(slim_registry != NULL);
	if (!slim_registry_exit_hooked)
	{
		before_shmem_exit(slim_floor_unregister_at_exit, (Datum) 0);
		slim_registry_exit_hooked = true;
	}
	memset(&entry, 0, sizeof(entry));
	entry.pid = MyProcPid;
	entry.dbid = MyDatabaseId;
	entry.relid = relid;
	while ((x = bms_next_member(attrs, x)) >= 0)
		if (x < SLIM_REGISTRY_NBITS)
			entry.attrs[x / 8] |= (uint8) (1 << (x % 8));

	slim_floor_unregister();
	LWLockAcquire(slim_registry->lock, LW_EXCLUSIVE);
	for (i = 0; i < slim_registry->nentries && !stored; i++)
	{
		if (slim_registry->entries[i].pid != 0)
			continue;
		slim_registry->entries[i] = entry;
		pg_atomic_add_fetch_u32(&slim_registry->nused, 1);
		stored = true;
	}
	LWLockRelease(slim_registry->lock);
	/* one entry a backend, MaxBackends entries */
	if (!stored)
		elog(ERROR, "slimheap floor registry is full");
}

/*
 * The attributes registered for relid of this database by any backend, or
 * NULL; in the caller's memory context.
 */
Bitmapset *
slim_floor_registered(Oid relid)
{
	SlimFloorEntry entry;
	Bitmapset  *attrs = NULL;
	bool		found = false;
	int			i;
	int			x;

	if (slim_registry == NULL ||
		pg_atomic_read_u32(&slim_registry->nused) == 0)
		return NULL;
	memset(&entry, 0, sizeof(entry));
	LWLockAcquire(slim_registry->lock, LW_SHARED);
	for (i = 0; i < slim_registry->nentries; i++)
	{
		SlimFloorEntry *e = &slim_registry->entries[i];
		int			b;

		if (e->pid == 0 || e->relid != relid || e->dbid != MyDatabaseId)
			continue;
		for (b = 0; b < lengthof(entry.attrs); b++)
			entry.attrs[b] |= e->attrs[b];
		found = true;
	}
	LWLockRelease(slim_registry->lock);
	if (!found)
		return NULL;
	for (x = 0; x < SLIM_REGISTRY_NBITS; x++)
		if (entry.attrs[x / 8] & (1 << (x % 8)))
			attrs = bms_add_member(attrs, x);
	return attrs;
}
