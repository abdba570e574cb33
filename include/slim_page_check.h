/*-------------------------------------------------------------------------
 *
 * slim_page_check.h
 *	  Bounds checks of line pointers and tuple headers read from a page, and
 *	  the form of a stored row, shared by the functions that read pages
 *	  themselves: slimheap.stats(), slimheap.page_items(), slimheap.verify().
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_PAGE_CHECK_H
#define SLIM_PAGE_CHECK_H

#include "access/htup_details.h"
#include "storage/itemid.h"

/*
 * The t_infomask2 bit reserved for rows in the compressed-tail form of the
 * future "compress" mode (htup_details.h leaves bits 0x1800 free; see
 * docs/reliability.md).  No version of slimheap writes it yet, so today a
 * row carrying it is corrupt.
 */
#define SLIM_TAIL_MARKER		0x0800

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
	SLIM_HEADER_BITMAP,			/* the NULL bitmap runs past t_hoff */
	SLIM_HEADER_TAIL_MARKER		/* SLIM_TAIL_MARKER set */
} SlimHeaderProblem;

/* How a sound stored row is written. */
typedef enum SlimRowForm
{
	SLIM_ROW_FULL,				/* all attributes stored: heap's own layout */
	SLIM_ROW_TRUNCATED			/* fewer attributes stored than the table has */
} SlimRowForm;

#define SLIM_NUM_ROW_FORMS		2

extern SlimItemProblem slim_check_item_bounds(ItemId lp, Size lower,
											  Size upper);
extern SlimHeaderProblem slim_check_tuple_header(HeapTupleHeader td,
												 Size lp_len, int relnatts);
extern const char *slim_item_problem_text(SlimItemProblem problem);
extern const char *slim_header_problem_text(SlimHeaderProblem problem);
extern SlimRowForm slim_row_form(HeapTupleHeader td, int relnatts);
extern const char *slim_row_form_name(SlimRowForm form);

#endif							/* SLIM_PAGE_CHECK_H */
