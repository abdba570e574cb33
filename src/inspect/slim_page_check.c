/*-------------------------------------------------------------------------
 *
 * slim_page_check.c
 *	  Bounds checks of line pointers and tuple headers read from a page, and
 *	  the form of a stored row.
 *
 * slimheap.stats(), slimheap.page_items() and slimheap.verify() read pages
 * themselves and trust nothing on them: before a tuple header is read, its
 * line pointer must point inside the page, and before attributes are read,
 * the header must describe a layout that fits the item.  Each function words
 * what it finds in its own way (an error, a "problem" column, a report row);
 * the rules are here, once.  The compressed tail of a compress-mode row is
 * checked by its own decoder (slim_check_tail() in slim_tail_check.c).
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/inspect/slim_page_check.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "slim_page_check.h"
#include "slim_tail.h"

/*
 * Whether the storage of a normal line pointer lies within [lower, upper)
 * of the page (the caller chooses the bounds: the whole page after its
 * header, or the tuple space its header declares), starts MAXALIGNed and is
 * long enough to hold a tuple header.
 */
SlimItemProblem
slim_check_item_bounds(ItemId lp, Size lower, Size upper)
{
	Size		lp_off = ItemIdGetOffset(lp);
	Size		lp_len = ItemIdGetLength(lp);

	if (lp_off < lower || lp_off + lp_len > upper)
		return SLIM_ITEM_OUTSIDE;
	if (lp_off != MAXALIGN(lp_off))
		return SLIM_ITEM_UNALIGNED;
	if (lp_len < MAXALIGN(SizeofHeapTupleHeader))
		return SLIM_ITEM_SHORT;
	return SLIM_ITEM_SOUND;
}

/*
 * Whether the header of a tuple whose item passed slim_check_item_bounds()
 * describes a layout that fits the item and the relation (relnatts
 * attributes): attributes can then be located from t_hoff on.
 */
SlimHeaderProblem
slim_check_tuple_header(HeapTupleHeader td, Size lp_len, int relnatts)
{
	Size		hoff = td->t_hoff;
	int			natts = HeapTupleHeaderGetNatts(td);

	if (hoff < MAXALIGN(SizeofHeapTupleHeader) || hoff > lp_len)
		return SLIM_HEADER_HOFF_OUTSIDE;
	if (hoff != MAXALIGN(hoff))
		return SLIM_HEADER_HOFF_UNALIGNED;
	if (natts > relnatts)
		return SLIM_HEADER_NATTS;
	if ((td->t_infomask & HEAP_HASNULL) &&
		SizeofHeapTupleHeader + BITMAPLEN(natts) > hoff)
		return SLIM_HEADER_BITMAP;
	return SLIM_HEADER_SOUND;
}

const char *
slim_item_problem_text(SlimItemProblem problem)
{
	switch (problem)
	{
		case SLIM_ITEM_SOUND:
			break;
		case SLIM_ITEM_OUTSIDE:
			return "item lies outside the page";
		case SLIM_ITEM_UNALIGNED:
			return "item is not MAXALIGNed";
		case SLIM_ITEM_SHORT:
			return "item is shorter than a tuple header";
	}
	return NULL;
}

const char *
slim_header_problem_text(SlimHeaderProblem problem)
{
	switch (problem)
	{
		case SLIM_HEADER_SOUND:
			break;
		case SLIM_HEADER_HOFF_OUTSIDE:
			return "t_hoff lies outside the item";
		case SLIM_HEADER_HOFF_UNALIGNED:
			return "t_hoff is not MAXALIGNed";
		case SLIM_HEADER_NATTS:
			return "natts exceeds the table's attributes";
		case SLIM_HEADER_BITMAP:
			return "NULL bitmap runs past t_hoff";
	}
	return NULL;
}

/*
 * For a row whose header passed slim_check_tuple_header() and that carries
 * the tail marker (SLIM_HEAP_TAIL): NULL when its prefix and compressed tail
 * can be decoded within the item (info then says where the parts lie), or
 * what is wrong.  The marker is legitimate in every mode: a table switched
 * from compress to another mode keeps the tail rows it has.  A row without
 * the marker gets NULL and no info.
 */
const char *
slim_check_row_tail(HeapTupleHeader td, Size lp_len, TupleDesc tupdesc,
					SlimTailInfo *info)
{
	if (!SlimHeaderHasTail(td))
		return NULL;
	return slim_check_tail(td, (uint32) lp_len, tupdesc, info);
}

/*
 * The form of a sound stored row of a relation with relnatts attributes.
 */
SlimRowForm
slim_row_form(HeapTupleHeader td, int relnatts)
{
	if (SlimHeaderHasTail(td))
		return SLIM_ROW_TAIL;
	if (HeapTupleHeaderGetNatts(td) < relnatts)
		return SLIM_ROW_TRUNCATED;
	return SLIM_ROW_FULL;
}

const char *
slim_row_form_name(SlimRowForm form)
{
	switch (form)
	{
		case SLIM_ROW_FULL:
			return "full";
		case SLIM_ROW_TRUNCATED:
			return "truncated";
		case SLIM_ROW_TAIL:
			return "tail";
	}
	return "?";					/* cannot happen */
}
