/*-------------------------------------------------------------------------
 *
 * slim_progress_view.c
 *	  slimheap.get_progress(), behind the view slimheap.progress: the
 *	  passes over tables that slimheap's backends of this database are
 *	  making now (src/am/slim_progress.c keeps them).
 *
 * As pg_stat_progress_* does, a role sees the figures of its own sessions'
 * passes (and of the roles it has the privileges of), and all of them
 * with those of pg_read_all_stats; of the others only the pid and the
 * command.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/inspect/slim_progress_view.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "slimheap.h"

PG_FUNCTION_INFO_V1(slimheap_get_progress);

#define SLIM_PROGRESS_COLUMNS	9

static const char *
slim_progress_command_name(SlimProgressCommand command)
{
	switch (command)
	{
		case SLIM_PROGRESS_COMPACT:
			return "compact";
		case SLIM_PROGRESS_VACUUM:
			return "vacuum re-layout";
		case SLIM_PROGRESS_INDEX:
			return "index build re-layout";
		case SLIM_PROGRESS_RELEASE:
			return "release";
	}
	return "?";
}

static const char *
slim_progress_phase_name(SlimProgressPhase phase)
{
	switch (phase)
	{
		case SLIM_PHASE_WAITING:
			return "waiting for writers";
		case SLIM_PHASE_RELAYING:
			return "re-laying rows in place";
		case SLIM_PHASE_MOVING:
			return "storing rows again";
		case SLIM_PHASE_PINNED:
			return "re-laying pinned pages";
		case SLIM_PHASE_OLD_SNAPSHOTS:
			return "waiting for older snapshots";
	}
	return "?";
}

/*
 * slimheap.get_progress(OUT pid int, OUT relid regclass, OUT command text,
 *	 OUT phase text, OUT pages_total bigint, OUT pages_done bigint,
 *	 OUT rows_relaid bigint, OUT rows_moved bigint, OUT bytes_saved bigint)
 */
Datum
slimheap_get_progress(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	SlimProgressEntry *entries;
	bool		all = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
	int			n;
	int			i;

	InitMaterializedSRF(fcinfo, 0);
	entries = slim_progress_entries(MyDatabaseId, &n);
	for (i = 0; i < n; i++)
	{
		SlimProgressEntry *e = &entries[i];
		Datum		values[SLIM_PROGRESS_COLUMNS];
		bool		nulls[SLIM_PROGRESS_COLUMNS];
		int			c;

		memset(nulls, 0, sizeof(nulls));
		values[0] = Int32GetDatum(e->pid);
		values[1] = ObjectIdGetDatum(e->relid);
		values[2] = CStringGetTextDatum(slim_progress_command_name(e->command));
		values[3] = CStringGetTextDatum(slim_progress_phase_name(e->phase));
		values[4] = Int64GetDatum(e->pages_total);
		values[5] = Int64GetDatum(e->pages_done);
		values[6] = Int64GetDatum(e->rows_relaid);
		values[7] = Int64GetDatum(e->rows_moved);
		values[8] = Int64GetDatum(e->bytes_saved);
		if (!all && !has_privs_of_role(GetUserId(), e->roleid))
		{
			nulls[1] = true;
			for (c = 3; c < SLIM_PROGRESS_COLUMNS; c++)
				nulls[c] = true;
		}
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values,
							 nulls);
	}
	return (Datum) 0;
}
