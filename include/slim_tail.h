/*-------------------------------------------------------------------------
 *
 * slim_tail.h
 *	  The compressed-tail row of slimheap.null_bitmap = compress: a standard
 *	  heap prefix followed by an encoded NULL map and the tail's values.
 *
 * docs/format.md gives the byte layout; src/slim_tail.c forms, decodes and
 * checks such rows.
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_TAIL_H
#define SLIM_TAIL_H

#include "access/htup_details.h"
#include "access/tupdesc.h"

#include "slimheap.h"

/*
 * The t_infomask2 bit of a row with a compressed tail.  htup_details.h
 * leaves 0x1800 free (15 through 18); natts (HEAP_NATTS_MASK, 0x07FF) then
 * counts the prefix only, so every heap reader sees a standard row of K
 * attributes.
 */
#define SLIM_HEAP_TAIL			0x0800

#define SlimHeaderHasTail(td)	(((td)->t_infomask2 & SLIM_HEAP_TAIL) != 0)

/* How the NULL map of the tail is encoded: the first byte of the tail. */
typedef enum SlimTailEncoding
{
	SLIM_TAIL_RUNS = 1,			/* varint run lengths, NULLs first */
	SLIM_TAIL_GAPS = 2,			/* varint count of NULLs before each value */
	SLIM_TAIL_BITMAP = 3		/* heap's bitmap sense, one bit an attribute */
} SlimTailEncoding;

#define SLIM_TAIL_MAX_ENCODING	SLIM_TAIL_BITMAP

/* What the header of a row's tail says, and where its parts lie. */
typedef struct SlimTailInfo
{
	SlimTailEncoding encoding;
	int			prefix_natts;	/* K: natts of the header */
	int			stored_natts;	/* K + M: attributes past it are NULL */
	int			nvalues;		/* non-NULL attributes in the tail */
	uint32		tail_off;		/* offsets from the start of the data */
	uint32		map_off;		/* (t_hoff): the map, past the header */
	uint32		values_off;		/* the first tail value (unaligned) */
	uint32		end_off;		/* past the last tail value */
} SlimTailInfo;

/* what slim_transcode_tail_tuple() needs of an attribute (slim_att_info) */
typedef struct SlimAttInfo
{
	int16		attlen;
	char		attalign;
	uint8		alignmask;		/* the alignment of attalign, minus 1 */
	uint8		group;			/* where its value goes in a tail */
} SlimAttInfo;

/* slim_tuple.c: heap's layout of values, over attributes [from, to) */
extern Size slim_data_size(TupleDesc tupdesc, const Datum *values,
						   const bool *isnull, int from, int to,
						   const int16 *attnums, Size off, bool *hasnull,
						   bool *external, bool *toastable);
extern HeapTuple slim_alloc_tuple(TupleDesc tupdesc, int natts, Size hoff,
								  Size len, bool hasnull, const bool *isnull);
extern Size slim_fill_data(TupleDesc tupdesc, const Datum *values,
						   const bool *isnull, int from, int to,
						   const int16 *attnums, char *start, Size off,
						   uint16 *infomask);

/* slim_tail.c */
extern HeapTuple slim_form_tail_tuple(TupleDesc tupdesc, const Datum *values,
									  const bool *isnull, int stored_natts,
									  int prefix_natts, Size truncate_len);
extern SlimAttInfo *slim_att_info(TupleDesc tupdesc, MemoryContext cxt);
extern HeapTuple slim_transcode_tail_tuple(HeapTuple source, TupleDesc tupdesc,
										   const SlimAttInfo *attinfo,
										   int prefix_natts);
extern void slim_order_values(TupleDesc tupdesc, const int16 *positions,
							  int n, int16 *ordered);
extern uint32 slim_prefix_end(HeapTupleHeader td, TupleDesc tupdesc);
extern int	slim_deform_tail(HeapTupleHeader td, TupleDesc tupdesc,
							 uint32 prefix_end, Datum *values, bool *isnull);
extern void slim_deform_tuple(HeapTuple tuple, TupleDesc tupdesc,
							  Datum *values, bool *isnull);

/* slim_tail_check.c */
extern const char *slim_check_tail(HeapTupleHeader td, uint32 len,
								   TupleDesc tupdesc, SlimTailInfo *info);

/* slim_tail.c */
extern const char *slim_tail_encoding_name(SlimTailEncoding encoding);

#endif							/* SLIM_TAIL_H */
