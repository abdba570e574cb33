/*-------------------------------------------------------------------------
 *
 * slim_page_check.h
 *	  Bounds checks of line pointers and tuple headers read from a page, and
 *	  the form of a stored row, shared by the functions that read pages
 *	  themselves: slimheap.stats(), slimheap.page_items(), slimheap.verify().
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_page_check.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_PAGE_CHECK_H
#define SLIM_PAGE_CHECK_H

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "storage/itemid.h"

#include "slim_tail.h"

/* What is wrong with a line pointer, if anything. */
typedef enum SlimItemProblem
{
	SLIM_ITEM_SOUND,
	SLIM_ITEM_OUTSIDE,			/* storage outside the bounds given */
	SLIM_ITEM_UNALIGNED,		/* lp_off not MAXALIGNed */
	SLIM_ITEM_SHORT				/* shorter than a tuple header */
} SlimItemProblem;

/* What is wrong with a tuple header within a sound item, if anything. */
typedef enum SlimHeaderProblem
{
	SLIM_HEADER_SOUND,
	SLIM_HEADER_HOFF_OUTSIDE,	/* t_hoff below the header or past the item */
	SLIM_HEADER_HOFF_UNALIGNED, /* t_hoff not MAXALIGNed */
	SLIM_HEADER_NATTS,			/* more attributes than the relation has */
	SLIM_HEADER_BITMAP			/* the NULL bitmap runs past t_hoff */
} SlimHeaderProblem;

/* How a sound stored row is written. */
typedef enum SlimRowForm
{
	SLIM_ROW_FULL,				/* all attributes stored: heap's own layout */
	SLIM_ROW_TRUNCATED,			/* fewer attributes stored than the table has */
	SLIM_ROW_TAIL				/* a standard prefix and a compressed tail */
} SlimRowForm;

#define SLIM_NUM_ROW_FORMS		3

extern SlimItemProblem slim_check_item_bounds(ItemId lp, Size lower,
											  Size upper);
extern SlimHeaderProblem slim_check_tuple_header(HeapTupleHeader td,
												 Size lp_len, int relnatts);
extern const char *slim_item_problem_text(SlimItemProblem problem);
extern const char *slim_header_problem_text(SlimHeaderProblem problem);
extern const char *slim_check_row_tail(HeapTupleHeader td, Size lp_len,
									   TupleDesc tupdesc, SlimTailInfo *info);
extern SlimRowForm slim_row_form(HeapTupleHeader td, int relnatts);
extern const char *slim_row_form_name(SlimRowForm form);

#endif							/* SLIM_PAGE_CHECK_H */
