/*-------------------------------------------------------------------------
 *
 * slim_tail_expand.c
 *	  heap's full form of a row with a compressed tail, made from its bytes:
 *	  the copies that leave a slimheap slot (invariant E1).
 *
 * Sorts, hashes, tuple stores and other tables' inserts copy whole rows.
 * heap copies its row with one memcpy; forming a tail row's copy from its
 * values walks every attribute of the descriptor twice (heap_form_tuple()),
 * hundreds of them on a wide table.  Here the prefix's bytes are copied as
 * they are, the bitmap is written from the map, and each tail value is
 * copied once, to where heap_fill_tuple() would put it.  docs/format.md
 * has both layouts.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/format/slim_tail_expand.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupdesc_details.h"
#include "access/tupmacs.h"

#include "slim_tail.h"

/*
 * A tail row and its full form: where the groups of its values start (each
 * group is in attribute order, so walking the values in attribute order
 * with one cursor a group finds each value where it lies), and the full
 * form's sizes.
 */
typedef struct SlimTailExpansion
{
	const char *tp;				/* the source's data */
	int			prefix_natts;	/* K */
	uint32		prefix_end;		/* the prefix's data, copied as it is */
	uint32		start[SLIM_FIXED_GROUPS + 1];	/* each group's first byte */
	int			n;				/* tail values, in attribute order */
	int16		attnum[MaxTupleAttributeNumber];	/* 0-based */
	bool		hasnull;		/* the full form has a NULL, hence a bitmap */
	Size		hoff;			/* the full form's t_hoff */
	Size		data_len;		/* and the length of its data */
} SlimTailExpansion;

/*
 * Walk the values of x in attribute order and lay them out as
 * heap_fill_tuple() does after the prefix's data: a varlena with a 1-byte
 * header unaligned, any other value by attalign (a tail value is never
 * external, C2, and has the header heap's former gave it).  With data,
 * copy them there, padding zeroed; returns the length of the data.
 */
static inline Size
slim_tail_expand_values(const SlimTailExpansion *x, const SlimAttInfo *attinfo,
						char *data)
{
	uint32		cursor[SLIM_FIXED_GROUPS + 1];
	Size		off = x->prefix_end;
	int			k;

	memcpy(cursor, x->start, sizeof(cursor));
	for (k = 0; k < x->n; k++)
	{
		const SlimAttInfo *ai = &attinfo[x->attnum[k]];
		const char *value;
		uint32		src;
		uint32		len;
		Size		aligned;

		src = slim_tail_value_start(ai, x->tp, cursor[ai->group]);
		value = x->tp + src;
		len = att_addlength_pointer(0, ai->attlen, value);
		cursor[ai->group] = src + len;

		aligned = off;
		if (ai->attlen != -1 || !VARATT_IS_SHORT(value))
			aligned = TYPEALIGN(ai->alignmask + 1, off);
		if (data != NULL)
		{
			memset(data + off, 0, aligned - off);
			memcpy(data + aligned, value, len);
		}
		off = aligned + len;
	}
	return off;
}

/*
 * The rest of x, the tail's map read up to p (x->n values at x->attnum):
 * where each group of values starts, and the sizes of the full form of
 * full_natts attributes.
 */
static inline void
slim_tail_expansion_layout(HeapTupleHeader td, const SlimAttInfo *attinfo,
						   const char *p, int full_natts, SlimTailExpansion *x)
{
	uint32		size[SLIM_FIXED_GROUPS] = {0};
	uint32		off;
	int			g;
	int			k;

	/* the groups of fixed-length values first, then the varlenas */
	for (k = 0; k < x->n; k++)
	{
		const SlimAttInfo *ai = &attinfo[x->attnum[k]];

		if (ai->isfixed)
			size[ai->group] = TYPEALIGN(ai->alignmask + 1, size[ai->group]) +
				ai->attlen;
	}
	off = p - x->tp;
	for (g = 0; g < SLIM_FIXED_GROUPS; g++)
	{
		if (size[g] > 0)
			off = TYPEALIGN(slim_group_align[g], off);
		x->start[g] = off;
		off += size[g];
	}
	x->start[SLIM_FIXED_GROUPS] = off;

	x->data_len = slim_tail_expand_values(x, attinfo, NULL);
	x->hasnull = (td->t_infomask & HEAP_HASNULL) != 0 ||
		x->n < full_natts - x->prefix_natts;
	x->hoff = MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
					   (x->hasnull ? BITMAPLEN(full_natts) : 0));
}

/*
 * Fill in x for tail row td read through tupdesc, whose attributes' packed
 * facts are attinfo (a wide descriptor's own entries are 100-odd bytes
 * apart: looking up the tail's at random costs more than the rest).  False
 * when the copy must be formed from the row's values: an attribute past
 * the tail has a missing value (a fast default added after the row was
 * stored), or the row has more attributes than tupdesc.
 */
static bool
slim_tail_expansion(HeapTupleHeader td, TupleDesc tupdesc,
					const SlimAttInfo *attinfo, SlimTailExpansion *x)
{
	int			first = HeapTupleHeaderGetNatts(td);
	const char *p;
	SlimTailEncoding encoding;
	int			ntail;
	int			map_ntail;
	int			stored_natts;
	int			k;

	if (first > tupdesc->natts)
		return false;
	x->tp = (const char *) td + td->t_hoff;
	x->prefix_natts = first;
	x->prefix_end = slim_prefix_end(td, tupdesc);
	p = x->tp + x->prefix_end;
	encoding = slim_tail_header_get(&p, &ntail, &map_ntail);
	stored_natts = first + ntail;
	if (stored_natts > tupdesc->natts)
		return false;
	if (tupdesc->constr != NULL && tupdesc->constr->missing != NULL)
	{
		for (k = stored_natts; k < tupdesc->natts; k++)
			if (tupdesc->constr->missing[k].am_present)
				return false;
	}

	x->n = slim_read_map(&p, encoding, first, map_ntail, x->attnum);
	slim_tail_expansion_layout(td, attinfo, p, tupdesc->natts, x);
	return true;
}

/*
 * Write the full form of src, of full_natts attributes, into dst from
 * t_infomask2 on (so dst may be a minimal tuple seen through
 * MINIMAL_TUPLE_OFFSET): header, bitmap, data.
 */
static void
slim_tail_expand_into(HeapTupleHeader src, int full_natts,
					  const SlimAttInfo *attinfo, const SlimTailExpansion *x,
					  HeapTupleHeader dst)
{
	int			first = x->prefix_natts;
	char	   *data = (char *) dst + x->hoff;
	Size		data_len PG_USED_FOR_ASSERTS_ONLY;
	int			k;

	dst->t_infomask2 = src->t_infomask2 & ~SLIM_HEAP_TAIL;
	HeapTupleHeaderSetNatts(dst, full_natts);
	dst->t_infomask = src->t_infomask & ~HEAP_HASNULL;
	dst->t_hoff = x->hoff;

	/* the bitmap: the prefix's bits, then one for each tail value */
	memset(dst->t_bits, 0, x->hoff - offsetof(HeapTupleHeaderData, t_bits));
	if (x->hasnull)
	{
		dst->t_infomask |= HEAP_HASNULL;
		if (src->t_infomask & HEAP_HASNULL)
			memcpy(dst->t_bits, src->t_bits, BITMAPLEN(first));
		else
			memset(dst->t_bits, 0xFF, BITMAPLEN(first));
		if (first % 8 != 0)
			dst->t_bits[first / 8] &= (1 << (first % 8)) - 1;
		for (k = 0; k < x->n; k++)
			dst->t_bits[x->attnum[k] / 8] |= 1 << (x->attnum[k] % 8);
	}

	memcpy(data, x->tp, x->prefix_end);
	data_len = slim_tail_expand_values(x, attinfo, data);
	Assert(data_len == x->data_len);
}

/*
 * A palloc'd copy of tail row source in heap's full form for tupdesc
 * (attinfo: slim_att_info() of it), its header before t_infomask2 copied
 * as heap_copytuple() copies it; NULL when the caller must form it from the
 * row's values (slim_tail_expansion()).
 */
HeapTuple
slim_tail_expand_tuple(HeapTuple source, TupleDesc tupdesc,
					   const SlimAttInfo *attinfo)
{
	HeapTupleHeader src = source->t_data;
	SlimTailExpansion x;
	HeapTuple	tuple;

	Assert(SlimHeaderHasTail(src));
	if (!slim_tail_expansion(src, tupdesc, attinfo, &x))
		return NULL;

	tuple = slim_copy_alloc(source, x.hoff + x.data_len);
	slim_tail_expand_into(src, tupdesc->natts, attinfo, &x, tuple->t_data);
	slim_copy_finish(tuple, src, tupdesc);
	return tuple;
}

/*
 * The same as a minimal tuple with extra zeroed bytes in front (18+; 0
 * before), or NULL.
 */
MinimalTuple
slim_tail_expand_minimal_tuple(HeapTuple source, TupleDesc tupdesc,
							   const SlimAttInfo *attinfo, Size extra)
{
	SlimTailExpansion x;
	MinimalTuple result;
	HeapTupleHeader td;

	Assert(SlimHeaderHasTail(source->t_data));
	if (!slim_tail_expansion(source->t_data, tupdesc, attinfo, &x))
		return NULL;

	td = slim_minimal_alloc(x.hoff + x.data_len, extra, &result);
	slim_tail_expand_into(source->t_data, tupdesc->natts, attinfo, &x, td);
	return result;
}

/*
 * Facts without a catalog.  Logical decoding meets a tail row in WAL,
 * where no catalog can be read, and must hand its output plugin heap's
 * full form.  The prefix is copied as it is (the row says where it ends);
 * each tail value needs its length, alignment and whether it is passed by
 * value: one byte each, in attribute order, and two more for a fixed
 * length that is not its alignment's size (uuid, interval, name, ...).
 */
#define SLIM_FACT_ALIGN			0x03	/* c, s, i, d */
#define SLIM_FACT_BYVAL			0x04
#define SLIM_FACT_VARLENA		0x00	/* the kinds, bits 3-4 */
#define SLIM_FACT_FIXED_ALIGN	0x08	/* attlen is the alignment's size */
#define SLIM_FACT_FIXED_LEN		0x10	/* an int16 attlen follows */
#define SLIM_FACT_KIND			0x18

static const char slim_fact_aligns[4] = {
	TYPALIGN_CHAR, TYPALIGN_SHORT, TYPALIGN_INT, TYPALIGN_DOUBLE
};

/*
 * Write the facts of tail row td's values (tupdesc's attributes) to out,
 * which has room for SLIM_TAIL_FACTS_MAX(natts of tupdesc) bytes; returns
 * their length, and in *prefix_end where the tail starts in the data.
 */
Size
slim_tail_facts(HeapTupleHeader td, TupleDesc tupdesc, char *out,
				uint32 *prefix_end)
{
	int			first = HeapTupleHeaderGetNatts(td);
	const char *p;
	SlimTailEncoding encoding;
	int			ntail;
	int			map_ntail;
	int16		positions[MaxTupleAttributeNumber];
	int			n;
	int			k;
	char	   *q = out;

	*prefix_end = slim_prefix_end(td, tupdesc);
	p = (const char *) td + td->t_hoff + *prefix_end;
	encoding = slim_tail_header_get(&p, &ntail, &map_ntail);
	n = slim_read_map(&p, encoding, first, map_ntail, positions);
	for (k = 0; k < n; k++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, positions[k]);
		uint8		fact = 0;
		int16		attlen = att->attlen;

		while (fact < lengthof(slim_fact_aligns) &&
			   slim_fact_aligns[fact] != att->attalign)
			fact++;
		if (fact == lengthof(slim_fact_aligns))
			elog(ERROR, "slimheap: attribute %d has alignment '%c'",
				 positions[k] + 1, att->attalign);
		if (att->attbyval)
			fact |= SLIM_FACT_BYVAL;
		if (attlen == -1)
			*q++ = (char) (fact | SLIM_FACT_VARLENA);
		else if (attlen > 0 && attlen == att_align_nominal(1, att->attalign))
			*q++ = (char) (fact | SLIM_FACT_FIXED_ALIGN);
		else if (attlen > 0)
		{
			*q++ = (char) (fact | SLIM_FACT_FIXED_LEN);
			memcpy(q, &attlen, sizeof(attlen));
			q += sizeof(attlen);
		}
		else
			elog(ERROR, "slimheap: attribute %d of a tail has length %d",
				 positions[k] + 1, attlen);
	}
	return q - out;
}

/* the facts of the next tail value, *pp advanced past them */
static void
slim_fact_read(const char **pp, const char *end, SlimAttInfo *info)
{
	FormData_pg_attribute att;
	uint8		fact;

	if (*pp >= end)
		elog(ERROR, "slimheap: the facts of a tail row end before its values");
	fact = (uint8) *(*pp)++;
	memset(&att, 0, sizeof(att));
	att.attalign = slim_fact_aligns[fact & SLIM_FACT_ALIGN];
	att.attbyval = (fact & SLIM_FACT_BYVAL) != 0;
	switch (fact & SLIM_FACT_KIND)
	{
		case SLIM_FACT_VARLENA:
			att.attlen = -1;
			break;
		case SLIM_FACT_FIXED_ALIGN:
			att.attlen = att_align_nominal(1, att.attalign);
			break;
		case SLIM_FACT_FIXED_LEN:
			if (end - *pp < (ptrdiff_t) sizeof(att.attlen))
				elog(ERROR, "slimheap: the facts of a tail row are cut short");
			memcpy(&att.attlen, *pp, sizeof(att.attlen));
			*pp += sizeof(att.attlen);
			break;
		default:
			elog(ERROR, "slimheap: unknown fact 0x%02x of a tail value", fact);
	}
	if (att.attlen == 0 || (att.attbyval && att.attlen > (int16) sizeof(Datum)))
		elog(ERROR, "slimheap: impossible facts of a tail value (length %d)",
			 att.attlen);
	slim_att_info_set(info, &att);
}

/*
 * heap's full form of tail row td, as many attributes as it stores (T1:
 * none past them has a missing value), made from its bytes and facts
 * (slim_tail_facts() of it) without a descriptor.  alloc(len, arg)
 * returns where to write the len bytes of the whole row; the fields before
 * t_infomask2 are left as alloc returns them.
 */
HeapTupleHeader
slim_tail_expand_by_facts(HeapTupleHeader td, uint32 prefix_end,
						  const char *facts, Size facts_len,
						  SlimTupleAlloc alloc, void *arg)
{
	SlimTailExpansion x;
	SlimAttInfo *attinfo;
	const char *p;
	const char *fp = facts;
	SlimTailEncoding encoding;
	int			ntail;
	int			map_ntail;
	int			stored_natts;
	HeapTupleHeader dst;
	int			k;

	x.tp = (const char *) td + td->t_hoff;
	x.prefix_natts = HeapTupleHeaderGetNatts(td);
	x.prefix_end = prefix_end;
	p = x.tp + prefix_end;
	encoding = slim_tail_header_get(&p, &ntail, &map_ntail);
	stored_natts = x.prefix_natts + ntail;
	if (stored_natts > MaxTupleAttributeNumber)
		elog(ERROR, "slimheap: a tail row of %d attributes", stored_natts);
	x.n = slim_read_map(&p, encoding, x.prefix_natts, map_ntail, x.attnum);

	attinfo = palloc(stored_natts * sizeof(SlimAttInfo));
	for (k = 0; k < x.n; k++)
		slim_fact_read(&fp, facts + facts_len, &attinfo[x.attnum[k]]);
	if (fp != facts + facts_len)
		elog(ERROR, "slimheap: the facts of a tail row are longer than its values");

	slim_tail_expansion_layout(td, attinfo, p, stored_natts, &x);
	dst = alloc(x.hoff + x.data_len, arg);
	slim_tail_expand_into(td, stored_natts, attinfo, &x, dst);
	pfree(attinfo);
	return dst;
}
