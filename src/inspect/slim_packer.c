/*-------------------------------------------------------------------------
 *
 * slim_packer.c
 *	  Simulated pages for slimheap.estimate(): rows of given lengths packed
 *	  the way a table rewrite's heap_insert() packs them.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/inspect/slim_packer.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "storage/bufpage.h"

#include "slim_inspect.h"

/* PageGetHeapFreeSpace() of the packer's last page */
static Size
slim_packer_free(const SlimPacker *p)
{
	Size		space;

	if (p->upper - p->lower < sizeof(ItemIdData))
		return 0;
	space = p->upper - p->lower - sizeof(ItemIdData);
	/* a new page has no unused line pointers to recycle */
	if (p->nitems >= MaxHeapTuplesPerPage)
		return 0;
	return space;
}

/* one row of stored length len */
void
slim_packer_add(SlimPacker *p, Size len)
{
	Size		nearly_empty;
	Size		target;

	/* heap refuses longer rows; the estimate keeps going with a full page */
	len = MAXALIGN(Min(len, MaxHeapTupleSize));

	nearly_empty = MaxHeapTupleSize -
		(MaxHeapTuplesPerPage / 8 * sizeof(ItemIdData));
	if (len + p->save_free > nearly_empty)
		target = Max(len, nearly_empty);
	else
		target = len + p->save_free;

	if (p->pages == 0 || target > slim_packer_free(p))
	{
		p->pages++;
		p->lower = SizeOfPageHeaderData;
		p->upper = BLCKSZ;
		p->nitems = 0;
	}
	p->lower += sizeof(ItemIdData);
	p->upper -= len;
	p->nitems++;
}

/*
 * The pages used, counting the last page by the share of it the rows fill:
 * what a sample stands for is a stretch of the table, not whole pages.
 */
double
slim_packer_fractional_pages(const SlimPacker *p)
{
	Size		usable = BLCKSZ - SizeOfPageHeaderData;
	Size		used;

	if (p->pages == 0)
		return 0.0;
	used = (p->lower - SizeOfPageHeaderData) + (BLCKSZ - p->upper);
	return (double) (p->pages - 1) + Min(1.0, (double) used / usable);
}
