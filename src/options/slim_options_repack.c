/*-------------------------------------------------------------------------
 *
 * slim_options_repack.c
 *	  The copies pg_repack makes of a table to swap them in.
 *
 * pg_repack rebuilds a table by copying it into repack.table_<oid of the
 * table> (CREATE TABLE ... WITH (<the table's reloptions>) AS SELECT ...
 * WITH NO DATA, then INSERT ... SELECT), building its indexes, and swapping
 * the two tables' files in pg_class.  The original keeps its catalog rows:
 * its access method, its options, its attributes with their fast defaults.
 * So the file swapped in must hold the rows that catalog describes:
 *
 * - the copy gets the original's access method, whatever
 *	 default_table_access_method says (the statement names none): heap's
 *	 rows for a heap table, slimheap's for a slimheap table;
 * - a slimheap copy gets the original's slimheap entries, with the mode
 *	 stored explicitly (slimheap.default_null_bitmap must not decide it);
 * - its rows keep what the original's rows must keep (the prefix floor:
 *	 the original's indexes, replica identity and fast-default columns),
 *	 which slim_relinfo.c computes with slim_repack_copy_source().
 *
 * A copy is recognised by its name in pg_repack's own schema: the schema
 * "repack" that belongs to extension pg_repack (only its owner, a
 * superuser, can create objects there unless granted), and a name that
 * reads table_<oid> of an existing table.  At CREATE the role must also
 * own that table, as pg_repack requires; a name of that form in pg_repack's
 * schema that fails these checks is refused with an error, never guessed.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/options/slim_options_repack.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "slim_compat.h"
#include "slim_options.h"

#define SLIM_REPACK_SCHEMA		"repack"
#define SLIM_REPACK_EXTENSION	"pg_repack"
#define SLIM_REPACK_PREFIX		"table_"

/* the OID in a name table_<oid>, or InvalidOid */
static Oid
slim_repack_name_oid(const char *relname)
{
	const char *digits = relname + strlen(SLIM_REPACK_PREFIX);
	char	   *end;
	unsigned long oid;

	if (strncmp(relname, SLIM_REPACK_PREFIX, strlen(SLIM_REPACK_PREFIX)) != 0 ||
		*digits < '1' || *digits > '9')
		return InvalidOid;
	errno = 0;
	oid = strtoul(digits, &end, 10);
	if (*end != '\0' || errno != 0 || oid > PG_UINT32_MAX)
		return InvalidOid;
	return (Oid) oid;
}

/* whether namespace nsp is the schema of extension pg_repack */
static bool
slim_is_repack_schema(Oid nsp)
{
	Oid			ext = get_extension_oid(SLIM_REPACK_EXTENSION, true);

	return OidIsValid(ext) &&
		getExtensionOfObject(NamespaceRelationId, nsp) == ext;
}

/*
 * Whether relid is a table or materialized view; if so, *amoid is its
 * access method.
 */
static bool
slim_repack_is_table(Oid relid, Oid *amoid)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Form_pg_class form;
	bool		is_table;

	if (!HeapTupleIsValid(tuple))
		return false;
	form = (Form_pg_class) GETSTRUCT(tuple);
	is_table = form->relkind == RELKIND_RELATION ||
		form->relkind == RELKIND_MATVIEW;
	*amoid = form->relam;
	ReleaseSysCache(tuple);
	return is_table;
}

/*
 * If relation, the name a CREATE statement gives its new table, is a copy
 * pg_repack makes, return the table it copies, and its access method in
 * *amoid; else InvalidOid.  Errors for
 * a name in pg_repack's schema that reads like a copy's but whose table
 * does not exist or is not the role's.
 */
Oid
slim_repack_original(const RangeVar *relation, Oid *amoid)
{
	Oid			original;
	Oid			nsp;

	if (relation->schemaname == NULL ||
		strcmp(relation->schemaname, SLIM_REPACK_SCHEMA) != 0)
		return InvalidOid;
	original = slim_repack_name_oid(relation->relname);
	if (!OidIsValid(original))
		return InvalidOid;
	nsp = get_namespace_oid(SLIM_REPACK_SCHEMA, true);
	if (!OidIsValid(nsp) || !slim_is_repack_schema(nsp))
		return InvalidOid;

	if (!slim_repack_is_table(original, amoid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot tell what \"%s.%s\" is a pg_repack copy of",
						SLIM_REPACK_SCHEMA, relation->relname),
				 errdetail("pg_repack names the copy of a table after the table's OID, and no table or materialized view has OID %u.",
						   original),
				 errhint("Run pg_repack again; if it fails the same way, drop the leftovers with DROP EXTENSION pg_repack CASCADE and create the extension again.")));
	if (!slim_relation_ownercheck(original, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s to create its pg_repack copy",
						get_rel_name(original)),
				 errdetail("\"%s.%s\" is the name pg_repack gives the copy it swaps into that table.",
						   SLIM_REPACK_SCHEMA, relation->relname)));
	return original;
}

/*
 * If rel is a copy pg_repack makes (by its name in pg_repack's schema),
 * the OID of the table it copies, else InvalidOid.  For the rows written
 * into the copy: no privilege is checked here (slim_repack_original() did
 * at CREATE), and a table that only looks like a copy keeps no more than
 * the NULLs its namesake's rows keep.
 */
Oid
slim_repack_copy_source(Relation rel)
{
	Oid			original = slim_repack_name_oid(RelationGetRelationName(rel));
	Oid			amoid;

	if (!OidIsValid(original) ||
		!slim_is_repack_schema(RelationGetNamespace(rel)) ||
		!slim_repack_is_table(original, &amoid))
		return InvalidOid;
	return original;
}
