/*-------------------------------------------------------------------------
 *
 * slim_tail.h
 *	  The compressed-tail row of slimheap.null_bitmap = compress: a standard
 *	  heap prefix followed by an encoded NULL map and the tail's values.
 *
 * docs/format.md gives the byte layout; src/format/ forms (slim_tail.c),
 * re-prefixes (slim_tail_transcode.c), decodes (slim_tail_read.c; a
 * slot's decoder: slim_tail_decode.c) and checks (slim_tail_check.c) such
 * rows.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  include/slim_tail.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SLIM_TAIL_H
#define SLIM_TAIL_H

#include <limits.h>

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "access/tupmacs.h"
#include "catalog/pg_type.h"
#include "nodes/bitmapset.h"

#include "slim_format.h"

/*
 * The t_infomask2 bit of a row with a compressed tail.  htup_details.h
 * leaves 0x1800 free (15 through 18); natts (HEAP_NATTS_MASK, 0x07FF) then
 * counts the prefix only, so every heap reader sees a standard row of K
 * attributes.
 */
#define SLIM_HEAP_TAIL			0x0800

/* a future PostgreSQL that takes the bit for itself must fail the build */
StaticAssertDecl((SLIM_HEAP_TAIL & (HEAP_NATTS_MASK | HEAP_KEYS_UPDATED |
									HEAP_HOT_UPDATED | HEAP_ONLY_TUPLE |
									HEAP2_XACT_MASK)) == 0,
				 "SLIM_HEAP_TAIL collides with a t_infomask2 bit of heap's");

#define SlimHeaderHasTail(td)	(((td)->t_infomask2 & SLIM_HEAP_TAIL) != 0)

/*
 * The leading attributes a prefix keeps at no cost: their NULL bitmap fits
 * in the padding that MAXALIGN leaves after the 23-byte header (8 on
 * 64-bit builds), and heap's own code reads them where the row starts.
 */
#define SLIM_FREE_PREFIX_NATTS \
	((int) (MAXALIGN(SizeofHeapTupleHeader) - SizeofHeapTupleHeader) * BITS_PER_BYTE)

/* How the NULL map of the tail is encoded: the low two bits of its header. */
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
	int			stored_natts;	/* K + M: attributes past it read missing */
	int			trailing_nulls; /* Z: stored NULLs that end the tail */
	int			nvalues;		/* non-NULL attributes in the tail */
	uint32		tail_off;		/* offsets from the start of the data */
	uint32		map_off;		/* (t_hoff): the map, past the header */
	uint32		values_off;		/* the first tail value (unaligned) */
	uint32		end_off;		/* past the last tail value */
} SlimTailInfo;

/*
 * Groups 0 to 3 of a tail's values hold fixed-length values of one
 * alignment each (slim_value_group()), group 4 the variable-length ones.
 */
#define SLIM_FIXED_GROUPS	4

/*
 * What slim_transcode_tail_tuple() and slim_deform_tail_upto() need of an
 * attribute, packed (slim_att_info)
 */
typedef struct SlimAttInfo
{
	int16		attlen;
	char		attalign;
	uint8		alignmask;		/* the alignment of attalign, minus 1 */
	uint8		group;			/* where its value goes in a tail */
	bool		attbyval;
	uint8		shift;			/* by value: 64 - 8 * attlen, else 0 */
	uint8		isfixed;		/* 1 in groups 0 to 3, 0 in group 4 */
} SlimAttInfo;

/*
 * What a slot keeps for slim_deform_tail_upto() from one row to the next:
 * the packed facts of the attributes met so far (known[]; all of them once
 * it has decoded a few rows: known_all), and which of its
 * values/isnull entries read NULL ((Datum) 0, true) already: those in
 * [null_lo, null_hi) but for the nset listed in set[], which a row decoded
 * there set.  Each row then resets the entries the rows before it set, not
 * its whole range.  Arrays of the descriptor's natts; zeroed: nothing known.
 */
typedef struct SlimTailReader
{
	SlimAttInfo *attinfo;
	bool	   *known;
	int16	   *set;
	int			nset;
	int			set_min;		/* no entry of set[] lies below it (or 0) */
	int			rows;			/* rows decoded while some are not known */
	bool		known_all;		/* every attribute's facts are filled in */
	int			null_lo;
	int			null_hi;
	/* known_all: each fixed group's one attlen and attbyval, or len -1 */
	int16		group_len[SLIM_FIXED_GROUPS];
	bool		group_byval[SLIM_FIXED_GROUPS];
	uint8		varlena_align;	/* known_all: every varlena's, or 0 */
} SlimTailReader;

/* someone else wrote the entries: nothing is known to read NULL */
static inline void
slim_tail_reader_forget(SlimTailReader *rd)
{
	rd->null_lo = rd->null_hi = 0;
	rd->nset = 0;
}

/* entries [0, n) were written by heap's deforming of a standard prefix */
static inline void
slim_tail_reader_wrote(SlimTailReader *rd, int n)
{
	if (unlikely(n > rd->null_lo))
		rd->null_lo = n;
}

/* unsigned LEB128: values here stay below 2^14 (at most 1600 attributes) */
static inline int
slim_varint_len(uint32 value)
{
	return value < 0x80 ? 1 : value < 0x4000 ? 2 : 3;
}

static inline char *
slim_varint_put(char *p, uint32 value)
{
	while (value >= 0x80)
	{
		*p++ = (char) ((value & 0x7F) | 0x80);
		value >>= 7;
	}
	*p++ = (char) value;
	return p;
}

/* the trusting reader, for rows this build formed */
static inline uint32
slim_varint_get(const char **pp)
{
	const uint8 *p = (const uint8 *) *pp;
	uint32		value = p[0];
	int			shift = 7;

	/* the map's gaps and runs are short: most take one byte */
	if (likely(value < 0x80))
	{
		*pp = (const char *) p + 1;
		return value;
	}
	value &= 0x7F;
	while (*p++ & 0x80)
	{
		value |= (uint32) (*p & 0x7F) << shift;
		shift += 7;
	}
	*pp = (const char *) p;
	return value;
}

/*
 * A tail's header at *pp, *pp left at its map: the encoding of the map;
 * *ntail, the attributes the tail covers (M: those past it read as
 * missing); *map_ntail, those its map covers.  A tail may end with Z stored
 * NULLs (a row that must store the NULLs of its table's fast-default
 * columns, docs/fast-defaults.md): its header then names encoding 0, and a
 * second varint (Z << 2) | encoding follows; its map covers M - Z
 * attributes and ends with a value, or is empty (M = Z: no value).  A
 * second header of encoding 0 or with Z past M is no form of this version's.
 */
static inline SlimTailEncoding
slim_tail_header_get(const char **pp, int *ntail, int *map_ntail)
{
	uint32		header = slim_varint_get(pp);

	*ntail = *map_ntail = (int) (header >> 2);
	if (likely((header & 3) != 0))
		return (SlimTailEncoding) (header & 3);
	header = slim_varint_get(pp);
	*map_ntail -= (int) (header >> 2);
	if (unlikely((header & 3) == 0 || *map_ntail < 0 || (header >> 2) == 0))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a row's compressed tail has a form this version of slimheap does not read"),
				 errdetail("Its tail header ends with %u stored NULLs of %d attributes in encoding %u: a newer slimheap's form, or a damaged row.",
						   header >> 2, *ntail, header & 3),
				 errhint("Install the slimheap that wrote it again, or check the table with slimheap.verify().")));
	return (SlimTailEncoding) (header & 3);
}

/* the header varints of a tail of ntail attributes, ending with z NULLs */
static inline char *
slim_tail_header_put(char *p, int ntail, int z, SlimTailEncoding encoding)
{
	if (z == 0)
		return slim_varint_put(p, ((uint32) ntail << 2) | encoding);
	p = slim_varint_put(p, (uint32) ntail << 2);
	return slim_varint_put(p, ((uint32) z << 2) | encoding);
}

static inline int
slim_tail_header_len(int ntail, int z, SlimTailEncoding encoding)
{
	if (z == 0)
		return slim_varint_len(((uint32) ntail << 2) | encoding);
	return slim_varint_len((uint32) ntail << 2) +
		slim_varint_len(((uint32) z << 2) | encoding);
}

/* the tail header: one varint, the tail's attribute count and encoding */
#define SLIM_TAIL_HEADER(ntail, encoding)	(((uint32) (ntail) << 2) | (encoding))

/*
 * The smallest encoding of a tail of ntail attributes whose RUNS and GAPS
 * maps take runs_len and gaps_len bytes; ties go to RUNS, then GAPS.
 */
static inline SlimTailEncoding
slim_tail_pick_encoding(Size runs_len, Size gaps_len, int ntail,
						Size *map_len)
{
	Size		bitmap_len = (ntail + 7) / 8;

	if (runs_len <= gaps_len && runs_len <= bitmap_len)
	{
		*map_len = runs_len;
		return SLIM_TAIL_RUNS;
	}
	if (gaps_len <= bitmap_len)
	{
		*map_len = gaps_len;
		return SLIM_TAIL_GAPS;
	}
	*map_len = bitmap_len;
	return SLIM_TAIL_BITMAP;
}

/*
 * The group of an attribute's tail value: fixed-length values by falling
 * alignment, then variable-length ones, so that values pad as little as
 * they can (docs/format.md).
 */
static inline int
slim_value_group(Form_pg_attribute att)
{
	if (att->attlen < 0)
		return 4;
	switch (att->attalign)
	{
		case TYPALIGN_DOUBLE:
			return 0;
		case TYPALIGN_INT:
			return 1;
		case TYPALIGN_SHORT:
			return 2;
		default:
			return 3;
	}
}

/* the packed facts of one attribute */
static inline void
slim_att_info_set(SlimAttInfo *info, Form_pg_attribute att)
{
	info->attlen = att->attlen;
	info->attalign = att->attalign;
	info->alignmask = att_align_nominal(1, att->attalign) - 1;
	info->group = slim_value_group(att);
	info->attbyval = att->attbyval;
	info->shift = att->attbyval && att->attlen > 0 ? 64 - 8 * att->attlen : 0;
	info->isfixed = info->group < SLIM_FIXED_GROUPS;
}

/* where a stored value of att at tp + off starts, as heap's readers align */
static inline uint32
slim_align_stored(Form_pg_attribute att, const char *tp, uint32 off)
{
	if (att->attlen == -1)
		return att_align_pointer(off, att->attalign, -1, tp + off);
	return att_align_nominal(off, att->attalign);
}

/*
 * Where a tail value of attribute ai starts, the value before it ending at
 * tp + off: aligned as heap's readers align (att_align_pointer() tells a
 * varlena's 1-byte header from padding)
 */
static inline uint32
slim_tail_value_start(const SlimAttInfo *ai, const char *tp, uint32 off)
{
	if (ai->attlen == -1)
		return att_align_pointer(off, ai->attalign, -1, tp + off);
	return TYPEALIGN(ai->alignmask + 1, off);
}

/*
 * A fixed-length value as fetch_att() gives it (by value sign-extended, else
 * its address), without a branch on its length: the 8 bytes that end with
 * the value are read (a tail value has the tuple header before it, so they
 * lie in the tuple) and shifted down.
 */
static inline Datum
slim_fetch_fixed(const char *ptr, int16 attlen, bool attbyval, uint8 shift)
{
	/* where char is unsigned, heap's fetch zero-extends a "char": its way */
#if !defined(WORDS_BIGENDIAN) && CHAR_MIN < 0
	int64		word;

	memcpy(&word, ptr + attlen - sizeof(int64), sizeof(int64));
	return attbyval ? (Datum) (word >> shift) : PointerGetDatum(ptr);
#else
	return fetch_att(ptr, attbyval, attlen);
#endif
}

/* attribute a's packed facts, filled in from tupdesc the first time */
static inline SlimAttInfo *
slim_known_att(SlimAttInfo *attinfo, bool *known, TupleDesc tupdesc, int a)
{
	if (unlikely(!known[a]))
	{
		slim_att_info_set(&attinfo[a], TupleDescAttr(tupdesc, a));
		known[a] = true;
	}
	return &attinfo[a];
}

/* slim_tail.c: the tail former */
extern HeapTuple slim_form_tail_tuple(TupleDesc tupdesc, const Datum *values,
									  const bool *isnull, int stored_natts,
									  int prefix_natts, Size truncate_len);
extern char *slim_tail_write_map(char *p, SlimTailEncoding encoding,
								 const int16 *positions, int n, int first,
								 int ntail);
extern void slim_order_values(TupleDesc tupdesc, const int16 *positions,
							  int n, int16 *ordered);

/* slim_tail_transcode.c: a tail row of one prefix into another */
extern SlimAttInfo *slim_att_info(TupleDesc tupdesc, MemoryContext cxt);
extern HeapTuple slim_transcode_tail_tuple(HeapTuple source, TupleDesc tupdesc,
										   const SlimAttInfo *attinfo,
										   int prefix_natts);

/* slim_tail_read.c: decoding (trusting the row) */
extern const uint8 slim_group_align[SLIM_FIXED_GROUPS];
extern uint32 slim_prefix_end(HeapTupleHeader td, TupleDesc tupdesc);
extern int	slim_tail_natts(HeapTupleHeader td, TupleDesc tupdesc);
extern int	slim_tail_trailing_nulls(HeapTupleHeader td, TupleDesc tupdesc,
									 int *stored_natts);
extern int	slim_read_map(const char **pp, SlimTailEncoding encoding,
						  int first, int ntail, int16 *positions);
extern int	slim_tail_positions(HeapTupleHeader td, TupleDesc tupdesc,
								int16 *positions);
extern int	slim_deform_tail(HeapTupleHeader td, TupleDesc tupdesc,
							 uint32 prefix_end, Datum *values, bool *isnull);
extern int	slim_deform_tuple(HeapTuple tuple, TupleDesc tupdesc,
							  Datum *values, bool *isnull);
extern bool slim_tail_hides(HeapTupleHeader td, TupleDesc tupdesc,
							const Bitmapset *attrs, bool whole_row);
extern const char *slim_tail_encoding_name(SlimTailEncoding encoding);

/* slim_tail_prefix.c, slim_tail_decode.c: a slot's decoder (trusting the row) */
extern uint32 slim_deform_tail_prefix(HeapTupleHeader td, TupleDesc tupdesc,
									  SlimTailReader *rd, uint32 off,
									  int from, int upto,
									  Datum *values, bool *isnull);
extern int	slim_deform_tail_upto(HeapTupleHeader td, TupleDesc tupdesc,
								  SlimTailReader *rd, uint32 prefix_end,
								  int from, int natts,
								  Datum *values, bool *isnull);

/* slim_tail_expand.c: heap's full form of a tail row, from its bytes (E1) */
extern HeapTuple slim_tail_expand_tuple(HeapTuple source, TupleDesc tupdesc,
										const SlimAttInfo *attinfo);
extern MinimalTuple slim_tail_expand_minimal_tuple(HeapTuple source,
												   TupleDesc tupdesc,
												   const SlimAttInfo *attinfo,
												   Size extra);

/*
 * What logical decoding needs to expand a tail row without a catalog: at
 * most 3 bytes a value (slim_tail_facts()).  alloc returns room for len
 * bytes of a row.
 */
#define SLIM_TAIL_FACTS_MAX(natts)	(3 * (Size) (natts))
typedef HeapTupleHeader (*SlimTupleAlloc) (Size len, void *arg);
extern Size slim_tail_facts(HeapTupleHeader td, TupleDesc tupdesc, char *out,
							uint32 *prefix_end);
extern HeapTupleHeader slim_tail_expand_by_facts(HeapTupleHeader td,
												 uint32 prefix_end,
												 const char *facts,
												 Size facts_len,
												 SlimTupleAlloc alloc,
												 void *arg);

/* slim_tail_check.c: checking a row before anything trusts it */
extern const char *slim_check_tail(HeapTupleHeader td, uint32 len,
								   TupleDesc tupdesc, SlimTailInfo *info);

#endif							/* SLIM_TAIL_H */
