/*-------------------------------------------------------------------------
 *
 * slim_tail.c
 *	  Rows with a compressed tail (slimheap.null_bitmap = compress): forming,
 *	  decoding, and checking them.
 *
 * A tail row is a standard heap row of K attributes (its header's natts)
 * followed by an encoded NULL map of attributes K+1 .. T and their values;
 * heap's code reads the prefix and never looks past it.  The map is encoded
 * per row in the shortest of three ways.  docs/format.md gives the layout.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "catalog/pg_type.h"
#include "port/pg_bitutils.h"
#include "utils/expandeddatum.h"

#include "slim_tail.h"

#define SLIM_ALL_NULL	UINT64CONST(0x0101010101010101)

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
	uint32		value = p[0] & 0x7F;
	int			shift = 7;

	while (*p++ & 0x80)
	{
		value |= (uint32) (*p & 0x7F) << shift;
		shift += 7;
	}
	*pp = (const char *) p;
	return value;
}

/*
 * The 0-based numbers of the non-NULL attributes among [first, end) into
 * positions; returns how many.  NULL runs are skipped eight flags at a time.
 */
static int
slim_collect_values(const bool *isnull, int first, int end, int16 *positions)
{
	int			n = 0;
	int			i = first;

	while (i < end)
	{
		if (i + 8 <= end)
		{
			uint64		flags;

			memcpy(&flags, &isnull[i], sizeof(flags));
			if (flags == SLIM_ALL_NULL)
			{
				i += 8;
				continue;
			}
		}
		if (!isnull[i])
			positions[n++] = i;
		i++;
	}
	return n;
}

/*
 * The bytes each encoding needs for the NULL map of the ntail attributes
 * from first on, whose values are at positions[0 .. n-1] (the last one at
 * first + ntail - 1).
 */
static void
slim_measure_map(const int16 *positions, int n, int first,
				 Size *runs_len, Size *gaps_len)
{
	int			next = first;	/* the first attribute not yet mapped */
	int			k = 0;

	*runs_len = 0;
	*gaps_len = 0;
	while (k < n)
	{
		int			start = k;

		while (k + 1 < n && positions[k + 1] == positions[k] + 1)
			k++;
		k++;
		/* a NULL run, then the run of values positions[start .. k-1] */
		*runs_len += slim_varint_len(positions[start] - next) +
			slim_varint_len(k - start);
		*gaps_len += slim_varint_len(positions[start] - next) + (k - start - 1);
		next = positions[k - 1] + 1;
	}
}

static char *
slim_write_map(char *p, SlimTailEncoding encoding, const int16 *positions,
			   int n, int first, int ntail)
{
	int			next = first;
	int			k = 0;

	if (encoding == SLIM_TAIL_BITMAP)
	{
		/* the caller zeroed the memory: set the bits of the values */
		for (k = 0; k < n; k++)
			p[(positions[k] - first) >> 3] |= 1 << ((positions[k] - first) & 7);
		return p + (ntail + 7) / 8;
	}

	if (encoding == SLIM_TAIL_GAPS)
	{
		for (k = 0; k < n; k++)
		{
			p = slim_varint_put(p, positions[k] - next);
			next = positions[k] + 1;
		}
		return p;
	}

	while (k < n)
	{
		int			start = k;

		while (k + 1 < n && positions[k + 1] == positions[k] + 1)
			k++;
		k++;
		p = slim_varint_put(p, positions[start] - next);
		p = slim_varint_put(p, k - start);
		next = positions[k - 1] + 1;
	}
	return p;
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

/* positions[0 .. n-1] in the order the tail stores their values */
void
slim_order_values(TupleDesc tupdesc, const int16 *positions, int n,
				  int16 *ordered)
{
	int			start[6] = {0};
	int			k;

	for (k = 0; k < n; k++)
		start[slim_value_group(TupleDescAttr(tupdesc, positions[k])) + 1]++;
	for (k = 1; k < 6; k++)
		start[k] += start[k - 1];
	for (k = 0; k < n; k++)
		ordered[start[slim_value_group(TupleDescAttr(tupdesc, positions[k]))]++] =
			positions[k];
}

/* the smallest encoding of a map and its length; ties go to RUNS, GAPS */
static SlimTailEncoding
slim_choose_encoding(const int16 *positions, int n, int first, int ntail,
					 Size *map_len)
{
	Size		runs_len;
	Size		gaps_len;
	Size		bitmap_len = (ntail + 7) / 8;

	slim_measure_map(positions, n, first, &runs_len, &gaps_len);
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

/* the tail header: one varint, the tail's attribute count and encoding */
#define SLIM_TAIL_HEADER(ntail, encoding)	(((uint32) (ntail) << 2) | (encoding))

/*
 * Form the tail row of a row whose attributes past stored_natts are NULL,
 * with prefix_natts attributes in its prefix, when it is shorter on the page
 * than truncate_len (the length of the row's truncate form); NULL when it
 * is not (invariant C4).  The caller has checked C1-C3.
 */
HeapTuple
slim_form_tail_tuple(TupleDesc tupdesc, const Datum *values,
					 const bool *isnull, int stored_natts, int prefix_natts,
					 Size truncate_len)
{
	int			ntail = stored_natts - prefix_natts;
	int16		positions[MaxTupleAttributeNumber];
	int16		ordered[MaxTupleAttributeNumber];
	int			n;
	Size		map_len;
	SlimTailEncoding encoding;
	uint32		header;
	Size		prefix_end;
	Size		values_off;
	Size		end;
	Size		hoff;
	bool		prefix_hasnull;
	bool		ignore1;
	bool		ignore2;
	HeapTuple	tuple;
	HeapTupleHeader td;
	char	   *data;
	char	   *p;

	Assert(ntail > 0 && !isnull[stored_natts - 1]);

	n = slim_collect_values(isnull, prefix_natts, stored_natts, positions);
	encoding = slim_choose_encoding(positions, n, prefix_natts, ntail,
									&map_len);
	header = SLIM_TAIL_HEADER(ntail, encoding);
	slim_order_values(tupdesc, positions, n, ordered);

	prefix_end = slim_data_size(tupdesc, values, isnull, 0, prefix_natts,
								NULL, 0, &prefix_hasnull, &ignore1, &ignore2);
	values_off = prefix_end + slim_varint_len(header) + map_len;
	end = slim_data_size(tupdesc, values, isnull, 0, n, ordered, values_off,
						 &ignore1, &ignore1, &ignore2);
	hoff = MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
					(prefix_hasnull ? BITMAPLEN(prefix_natts) : 0));
	if (MAXALIGN(hoff + end) >= MAXALIGN(truncate_len))
		return NULL;

	tuple = slim_alloc_tuple(tupdesc, prefix_natts, hoff, hoff + end,
							 prefix_hasnull, isnull);
	td = tuple->t_data;
	td->t_infomask2 |= SLIM_HEAP_TAIL;
	data = (char *) td + hoff;

	p = data + slim_fill_data(tupdesc, values, isnull, 0, prefix_natts, NULL,
							  data, 0, &td->t_infomask);
	p = slim_varint_put(p, header);
	p = slim_write_map(p, encoding, positions, n, prefix_natts, ntail);
	Assert(p == data + values_off);
	end = slim_fill_data(tupdesc, values, isnull, 0, n, ordered, data,
						 values_off, &td->t_infomask);
	Assert(hoff + end == tuple->t_len);
	return tuple;
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
 * What the transcoder needs of each attribute, packed: a wide descriptor's
 * attributes are 100-odd bytes apart, and looking up a few dozen of them
 * per row at random places cost more than all the rest (cache misses).
 */
SlimAttInfo *
slim_att_info(TupleDesc tupdesc, MemoryContext cxt)
{
	SlimAttInfo *info = MemoryContextAlloc(cxt, sizeof(SlimAttInfo) *
										   Max(tupdesc->natts, 1));
	int			i;

	for (i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		info[i].attlen = att->attlen;
		info[i].attalign = att->attalign;
		info[i].alignmask = att_align_nominal(1, att->attalign) - 1;
		info[i].group = slim_value_group(att);
	}
	return info;
}

/* one value of a source row, as the transcoder copies it */
typedef struct SlimTailValue
{
	uint16		src_off;		/* where it is in the source's data */
	uint16		len;			/* its bytes */
	uint8		alignmask;		/* alignment - 1 (0 for a short varlena) */
	uint8		group;			/* slim_value_group() */
} SlimTailValue;

/*
 * The tail row of a standard stored row (source: a row of any table with
 * tupdesc's layout, its attributes past its natts NULL), made from its
 * bytes without deforming it: its bitmap gives the map, its values are
 * copied.  NULL when no tail may be made of it or the tail is not shorter
 * (C2, C4); prefix_natts is the caller's C1 floor.
 */
HeapTuple
slim_transcode_tail_tuple(HeapTuple source, TupleDesc tupdesc,
						  const SlimAttInfo *attinfo, int prefix_natts)
{
	HeapTupleHeader src = source->t_data;
	int			src_natts = Min(HeapTupleHeaderGetNatts(src), tupdesc->natts);
	const char *tp = (const char *) src + src->t_hoff;
	Size		data_len = source->t_len - src->t_hoff;
	int16		positions[MaxTupleAttributeNumber];
	int16		ordered[MaxTupleAttributeNumber];
	SlimTailValue vals[MaxTupleAttributeNumber];
	int			start[6] = {0};
	int			n = 0;
	int			run = 0;
	Size		runs_len = 0;
	Size		gaps_len = 0;
	int			ntail;
	int			i;
	int			k;
	uint32		off = 0;
	uint32		prefix_end;
	bool		prefix_hasnull = false;
	SlimTailEncoding encoding;
	Size		map_len;
	uint32		header;
	Size		values_off;
	Size		hoff;
	Size		truncate_len;
	uint32		limit;
	HeapTuple	tuple;
	HeapTupleHeader td;
	char	   *data;
	char	   *p;

	/* C2, and nothing to gain without NULLs */
	if (!(src->t_infomask & HEAP_HASNULL) ||
		(src->t_infomask & HEAP_HASEXTERNAL) || SlimHeaderHasTail(src) ||
		src_natts <= prefix_natts ||
		MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
				 BITMAPLEN(tupdesc->natts)) + data_len > TOAST_TUPLE_THRESHOLD)
		return NULL;

	/* the prefix: heap's walk */
	for (i = 0; i < prefix_natts; i++)
	{
		Form_pg_attribute att;

		if (att_isnull(i, src->t_bits))
		{
			prefix_hasnull = true;
			continue;
		}
		att = TupleDescAttr(tupdesc, i);
		off = slim_align_stored(att, tp, off);
		off = att_addlength_pointer(off, att->attlen, tp + off);
	}
	prefix_end = off;

	/*
	 * The tail: only its values, found eight bitmap bytes at a time, each
	 * looked up once; the lengths of the RUNS and GAPS maps are counted on
	 * the way.
	 */
	for (k = prefix_natts / 8; k < BITMAPLEN(src_natts); k += 8)
	{
		uint64		word = 0;
		int			valid = src_natts - k * 8;

		if (k + 8 <= BITMAPLEN(src_natts))
			memcpy(&word, &src->t_bits[k], sizeof(word));
		else
			memcpy(&word, &src->t_bits[k], BITMAPLEN(src_natts) - k);
		if (k == prefix_natts / 8)
			word &= ~UINT64CONST(0) << (prefix_natts % 8);
		if (valid < 64)
			word &= (UINT64CONST(1) << valid) - 1;
		while (word != 0)
		{
			const SlimAttInfo *att;
			SlimTailValue *v = &vals[n];
			int			gap;

			i = k * 8 + pg_rightmost_one_pos64(word);
			word &= word - 1;
			att = &attinfo[i];
			v->alignmask = att->alignmask;
			if (att->attlen > 0)
				v->len = att->attlen;
			else if (att->attlen == -1 && VARATT_NOT_PAD_BYTE(tp + off) &&
					 VARATT_IS_SHORT(tp + off))
			{
				/* a 1-byte header: unaligned, here and in the tail */
				v->alignmask = 0;
				v->len = VARSIZE_SHORT(tp + off);
			}
			else
			{
				off = (off + att->alignmask) & ~(uint32) att->alignmask;
				v->len = att_addlength_pointer(0, att->attlen, tp + off);
			}
			off = (off + v->alignmask) & ~(uint32) v->alignmask;
			v->src_off = off;
			v->group = att->group;
			start[v->group + 1]++;
			off += v->len;

			/* a value after a NULL (or the first) starts a run */
			gap = i - (n == 0 ? prefix_natts : positions[n - 1] + 1);
			gaps_len += slim_varint_len(gap);
			if (n == 0 || gap > 0)
			{
				if (run > 0)
					runs_len += slim_varint_len(run);
				runs_len += slim_varint_len(gap);
				run = 0;
			}
			run++;
			positions[n++] = i;
		}
	}
	if (n == 0)
		return NULL;
	runs_len += slim_varint_len(run);
	ntail = positions[n - 1] + 1 - prefix_natts;
	truncate_len = MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
							(prefix_hasnull || n < ntail ?
							 BITMAPLEN(prefix_natts + ntail) : 0)) + off;

	/* the smallest map; ties go to RUNS, then GAPS */
	map_len = (ntail + 7) / 8;
	encoding = SLIM_TAIL_BITMAP;
	if (gaps_len <= map_len)
		encoding = SLIM_TAIL_GAPS, map_len = gaps_len;
	if (runs_len <= map_len)
		encoding = SLIM_TAIL_RUNS, map_len = runs_len;
	header = SLIM_TAIL_HEADER(ntail, encoding);

	/* the store order: a counting sort on the groups */
	for (k = 1; k < 6; k++)
		start[k] += start[k - 1];
	for (k = 0; k < n; k++)
		ordered[start[vals[k].group]++] = k;

	/*
	 * Room for the truncate form is room enough for a tail worth keeping:
	 * lay the values out as they are copied, and give up if they pass it.
	 */
	hoff = MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
					(prefix_hasnull ? BITMAPLEN(prefix_natts) : 0));
	values_off = prefix_end + slim_varint_len(header) + map_len;
	if (MAXALIGN(hoff + values_off) >= MAXALIGN(truncate_len))
		return NULL;
	tuple = slim_alloc_tuple(tupdesc, prefix_natts, hoff,
							 MAXALIGN(truncate_len), false, NULL);
	td = tuple->t_data;
	data = (char *) td + hoff;
	/* MAXALIGN(hoff + end) >= MAXALIGN(truncate_len): end >= limit */
	limit = MAXALIGN(truncate_len) - hoff - (MAXIMUM_ALIGNOF - 1);
	off = values_off;
	for (k = 0; k < n; k++)
	{
		SlimTailValue *v = &vals[ordered[k]];
		char	   *to;
		const char *from = tp + v->src_off;

		off = (off + v->alignmask) & ~(uint32) v->alignmask;
		if (off + v->len >= limit)
		{
			heap_freetuple(tuple);
			return NULL;
		}
		to = data + off;
		/* fixed sizes as single moves: most tail values are small */
		switch (v->len)
		{
			case 8:
				memcpy(to, from, 8);
				break;
			case 4:
				memcpy(to, from, 4);
				break;
			case 2:
				memcpy(to, from, 2);
				break;
			case 1:
				*to = *from;
				break;
			default:
				memcpy(to, from, v->len);
				break;
		}
		off += v->len;
	}

	/* the real length, and what heap_form_tuple() would say of it */
	tuple->t_len = hoff + off;
	HeapTupleHeaderSetDatumLength(td, tuple->t_len);
	td->t_infomask2 |= SLIM_HEAP_TAIL;
	td->t_infomask |= src->t_infomask & HEAP_HASVARWIDTH;
	if (prefix_hasnull)
	{
		td->t_infomask |= HEAP_HASNULL;
		memcpy(td->t_bits, src->t_bits, BITMAPLEN(prefix_natts));
		if (prefix_natts % 8 != 0)
			td->t_bits[prefix_natts / 8] &= (1 << (prefix_natts % 8)) - 1;
	}
	memcpy(data, tp, prefix_end);
	p = slim_varint_put(data + prefix_end, header);
	p = slim_write_map(p, encoding, positions, n, prefix_natts, ntail);
	Assert(p == data + values_off);
	return tuple;
}

/*
 * Where the data of a row's prefix ends, relative to t_hoff: the walk heap's
 * deforming does over the header's natts attributes.
 */
uint32
slim_prefix_end(HeapTupleHeader td, TupleDesc tupdesc)
{
	int			natts = HeapTupleHeaderGetNatts(td);
	bool		hasnulls = (td->t_infomask & HEAP_HASNULL) != 0;
	char	   *tp = (char *) td + td->t_hoff;
	uint32		off = 0;
	int			i;

	for (i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (hasnulls && att_isnull(i, td->t_bits))
			continue;
		off = slim_align_stored(att, tp, off);
		off = att_addlength_pointer(off, att->attlen, tp + off);
	}
	return off;
}

/*
 * The attribute numbers (0-based) of the values of a tail whose map starts
 * at *pp, into positions; *pp is left past the map.  Returns how many.
 */
static int
slim_read_map(const char **pp, SlimTailEncoding encoding, int first,
			  int ntail, int16 *positions)
{
	const char *p = *pp;
	int			n = 0;
	int			i = 0;

	switch (encoding)
	{
		case SLIM_TAIL_RUNS:
			while (i < ntail)
			{
				int			vals;

				i += slim_varint_get(&p);
				vals = slim_varint_get(&p);
				while (vals-- > 0)
					positions[n++] = first + i++;
			}
			break;
		case SLIM_TAIL_GAPS:
			while (i < ntail)
			{
				i += slim_varint_get(&p);
				positions[n++] = first + i++;
			}
			break;
		case SLIM_TAIL_BITMAP:
			for (i = 0; i < (ntail + 7) / 8; i++)
			{
				uint32		bits = (uint8) p[i];

				while (bits != 0)
				{
					positions[n++] = first + i * 8 + pg_rightmost_one_pos32(bits);
					bits &= bits - 1;
				}
			}
			p += (ntail + 7) / 8;
			break;
	}
	*pp = p;
	return n;
}

/*
 * Deform the tail of a row this build formed into values/isnull: the
 * attributes from the header's natts (K) up to the last one the tail holds,
 * whose number is returned; the caller fills in the missing values of the
 * attributes after it.  prefix_end is slim_prefix_end()'s answer.  NULL
 * runs cost one memset, not a test each.
 */
int
slim_deform_tail(HeapTupleHeader td, TupleDesc tupdesc, uint32 prefix_end,
				 Datum *values, bool *isnull)
{
	int			first = HeapTupleHeaderGetNatts(td);
	char	   *tp = (char *) td + td->t_hoff;
	const char *p = tp + prefix_end;
	uint32		header = slim_varint_get(&p);
	int			ntail = header >> 2;
	int			stored_natts = Min(first + ntail, tupdesc->natts);
	int16		positions[MaxTupleAttributeNumber];
	int16		ordered[MaxTupleAttributeNumber];
	int			n;
	uint32		off;
	int			k;

	memset(isnull + first, true, stored_natts - first);
	memset(values + first, 0, (stored_natts - first) * sizeof(Datum));
	n = slim_read_map(&p, (SlimTailEncoding) (header & 3), first, ntail,
					  positions);
	while (n > 0 && positions[n - 1] >= stored_natts)
		n--;
	slim_order_values(tupdesc, positions, n, ordered);
	off = p - tp;

	for (k = 0; k < n; k++)
	{
		int			attnum = ordered[k];
		Form_pg_attribute att = TupleDescAttr(tupdesc, attnum);

		off = slim_align_stored(att, tp, off);
		values[attnum] = fetchatt(att, tp + off);
		isnull[attnum] = false;
		off = att_addlength_pointer(off, att->attlen, tp + off);
	}
	return stored_natts;
}

/*
 * heap_deform_tuple() for any slimheap row: a tail row's prefix is heap's
 * (and the attributes past it read as missing), then the tail is decoded.
 */
void
slim_deform_tuple(HeapTuple tuple, TupleDesc tupdesc, Datum *values,
				  bool *isnull)
{
	HeapTupleHeader td = tuple->t_data;

	heap_deform_tuple(tuple, tupdesc, values, isnull);
	if (SlimHeaderHasTail(td))
		(void) slim_deform_tail(td, tupdesc, slim_prefix_end(td, tupdesc),
								values, isnull);
}

const char *
slim_tail_encoding_name(SlimTailEncoding encoding)
{
	switch (encoding)
	{
		case SLIM_TAIL_RUNS:
			return "runs";
		case SLIM_TAIL_GAPS:
			return "gaps";
		case SLIM_TAIL_BITMAP:
			return "bitmap";
	}
	return "unknown";
}
