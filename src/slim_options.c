/*-------------------------------------------------------------------------
 *
 * slim_options.c
 *	  The slimheap.* per-table options.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/array.h"
#include "utils/builtins.h"

#include "slimheap.h"

/*
 * Fill opts from a pg_class.reloptions array (text[] of "name=value"), or
 * with the defaults when reloptions is (Datum) 0.  Options of other
 * namespaces are ignored; the values were checked when they were stored.
 */
void
slim_parse_reloptions(Datum reloptions, SlimOptions *opts)
{
	ArrayType  *array;
	Datum	   *elems;
	int			nelems;
	int			i;

	opts->null_bitmap = SLIM_NULL_BITMAP_DEFAULT;
	if (reloptions == (Datum) 0)
		return;

	array = DatumGetArrayTypeP(reloptions);
	deconstruct_array(array, TEXTOID, -1, false, TYPALIGN_INT,
					  &elems, NULL, &nelems);
	for (i = 0; i < nelems; i++)
	{
		char	   *item = TextDatumGetCString(elems[i]);

		if (strcmp(item, "slimheap.null_bitmap=full") == 0)
			opts->null_bitmap = SLIM_NULL_BITMAP_FULL;
		else if (strcmp(item, "slimheap.null_bitmap=truncate") == 0)
			opts->null_bitmap = SLIM_NULL_BITMAP_TRUNCATE;
		pfree(item);
	}
}

void
slim_options_init(void)
{
}
