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

#include "access/htup_details.h"
#include "access/tupmacs.h"
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

/* how many flags from isnull[from] on, before to, are NULL (want) or not */
static inline int
slim_run_length(const bool *isnull, int from, int to, bool want)
{
	uint64		all = want ? SLIM_ALL_NULL : 0;
	int			i = from;

	/* wide sparse rows: eight flags at a time while they all agree */
	while (i + 8 <= to)
	{
		uint64		flags;

		memcpy(&flags, &isnull[i], sizeof(flags));
		if (flags != all)
			break;
		i += 8;
	}
	while (i < to && isnull[i] == want)
		i++;
	return i - from;
}

/*
 * The bytes each encoding needs for the NULL map of attributes [first, end)
 * (the last of which is not NULL).
 */
static void
slim_measure_map(const bool *isnull, int first, int end,
				 Size *runs_len, Size *gaps_len)
{
	int			i = first;

	*runs_len = 0;
	*gaps_len = 0;
	while (i < end)
	{
		int			nulls = slim_run_length(isnull, i, end, true);
		int			vals = slim_run_length(isnull, i + nulls, end, false);

		*runs_len += slim_varint_len(nulls) + slim_varint_len(vals);
		/* a gap before the run's first value, a zero gap before the rest */
		*gaps_len += slim_varint_len(nulls) + (vals - 1);
		i += nulls + vals;
	}
}

static char *
slim_write_map(char *p, SlimTailEncoding encoding, const bool *isnull,
			   int first, int end)
{
	int			i = first;

	if (encoding == SLIM_TAIL_BITMAP)
	{
		/* the caller zeroed the memory: set the bits of the values */
		for (i = first; i < end; i++)
		{
			if (!isnull[i])
				p[(i - first) >> 3] |= 1 << ((i - first) & 7);
		}
		return p + (end - first + 7) / 8;
	}

	while (i < end)
	{
		int			nulls = slim_run_length(isnull, i, end, true);
		int			vals = slim_run_length(isnull, i + nulls, end, false);

		p = slim_varint_put(p, nulls);
		if (encoding == SLIM_TAIL_RUNS)
			p = slim_varint_put(p, vals);
		else
		{
			/* zero gaps are one zero byte each (the memory is zeroed) */
			p += vals - 1;
		}
		i += nulls + vals;
	}
	return p;
}

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
	Size		runs_len;
	Size		gaps_len;
	Size		bitmap_len = (ntail + 7) / 8;
	Size		map_len;
	SlimTailEncoding encoding;
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

	slim_measure_map(isnull, prefix_natts, stored_natts, &runs_len, &gaps_len);
	if (runs_len <= gaps_len && runs_len <= bitmap_len)
		encoding = SLIM_TAIL_RUNS, map_len = runs_len;
	else if (gaps_len <= bitmap_len)
		encoding = SLIM_TAIL_GAPS, map_len = gaps_len;
	else
		encoding = SLIM_TAIL_BITMAP, map_len = bitmap_len;

	prefix_end = slim_data_size(tupdesc, values, isnull, 0, prefix_natts, 0,
								&prefix_hasnull, &ignore1, &ignore2);
	values_off = prefix_end + 1 + slim_varint_len(ntail) + map_len;
	end = slim_data_size(tupdesc, values, isnull, prefix_natts, stored_natts,
						 values_off, &ignore1, &ignore1, &ignore2);
	hoff = MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
					(prefix_hasnull ? BITMAPLEN(prefix_natts) : 0));
	if (MAXALIGN(hoff + end) >= MAXALIGN(truncate_len))
		return NULL;

	tuple = slim_alloc_tuple(tupdesc, prefix_natts, hoff, hoff + end,
							 prefix_hasnull, isnull);
	td = tuple->t_data;
	td->t_infomask2 |= SLIM_HEAP_TAIL;
	data = (char *) td + hoff;

	p = data + slim_fill_data(tupdesc, values, isnull, 0, prefix_natts, data,
							  0, &td->t_infomask);
	*p++ = (char) encoding;
	p = slim_varint_put(p, ntail);
	p = slim_write_map(p, encoding, isnull, prefix_natts, stored_natts);
	Assert(p == data + values_off);
	end = slim_fill_data(tupdesc, values, isnull, prefix_natts, stored_natts,
						 data, values_off, &td->t_infomask);
	Assert(hoff + end == tuple->t_len);
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
	bool		hasnulls = ((td)->t_infomask & HEAP_HASNULL) != 0;
	char	   *tp = (char *) td + td->t_hoff;
	uint32		off = 0;
	int			i;

	for (i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (hasnulls && att_isnull(i, td->t_bits))
			continue;
		if (att->attlen == -1)
			off = att_align_pointer(off, att->attalign, -1, tp + off);
		else
			off = att_align_nominal(off, att->attalign);
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
	SlimTailEncoding encoding = (SlimTailEncoding) *p++;
	int			ntail = slim_varint_get(&p);
	int			stored_natts = Min(first + ntail, tupdesc->natts);
	int16		positions[MaxTupleAttributeNumber];
	int			nvalues;
	uint32		off;
	int			i;

	memset(isnull + first, true, stored_natts - first);
	memset(values + first, 0, (stored_natts - first) * sizeof(Datum));
	nvalues = slim_read_map(&p, encoding, first, ntail, positions);
	off = p - tp;

	for (i = 0; i < nvalues && positions[i] < stored_natts; i++)
	{
		int			attnum = positions[i];
		Form_pg_attribute att = TupleDescAttr(tupdesc, attnum);

		if (att->attlen == -1)
			off = att_align_pointer(off, att->attalign, -1, tp + off);
		else
			off = att_align_nominal(off, att->attalign);
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

/*
 * The checked twins of the readers above, for slimheap.verify: every read
 * stays inside the row's len bytes.
 */
static bool
slim_varint_get_checked(const uint8 *tp, uint32 datalen, uint32 *off,
						uint32 *value)
{
	int			i;

	*value = 0;
	for (i = 0; i < 3; i++)
	{
		if (*off >= datalen)
			return false;
		*value |= (uint32) (tp[*off] & 0x7F) << (7 * i);
		if ((tp[(*off)++] & 0x80) == 0)
			return true;
	}
	return false;
}

/* the length of the value of att at tp + off, or 0 when it is not sound */
static uint32
slim_value_len_checked(Form_pg_attribute att, const uint8 *tp, uint32 datalen,
					   uint32 off)
{
	uint32		room = datalen - off;

	if (att->attlen > 0)
		return (uint32) att->attlen <= room ? att->attlen : 0;
	if (att->attlen == -2)
	{
		uint32		n = strnlen((const char *) tp + off, room);

		return n < room ? n + 1 : 0;
	}
	if (room < 1)
		return 0;
	if (VARATT_IS_1B_E(tp + off))
		return 0;				/* a TOAST pointer: never in a tail */
	if (VARATT_IS_1B(tp + off))
	{
		uint32		n = VARSIZE_1B(tp + off);

		return n >= 1 && n <= room ? n : 0;
	}
	if (room < VARHDRSZ)
		return 0;
	{
		uint32		n = VARSIZE_4B(tp + off);

		return n >= VARHDRSZ && n <= room ? n : 0;
	}
}

/* align off for att as heap's readers do, reading only inside the row */
static uint32
slim_align_checked(Form_pg_attribute att, const uint8 *tp, uint32 datalen,
				   uint32 off)
{
	if (att->attlen == -1)
	{
		if (off < datalen && VARATT_NOT_PAD_BYTE(tp + off))
			return off;
	}
	return att_align_nominal(off, att->attalign);
}

static const char *
slim_walk_values_checked(TupleDesc tupdesc, const uint8 *tp, uint32 datalen,
						 const int16 *positions, int n, uint32 *off,
						 const bool *prefix_nulls)
{
	int			i;

	for (i = 0; i < n; i++)
	{
		int			attnum = positions[i];
		Form_pg_attribute att = TupleDescAttr(tupdesc, attnum);
		uint32		len;

		if (prefix_nulls != NULL && prefix_nulls[i])
			continue;
		*off = slim_align_checked(att, tp, datalen, *off);
		if (*off >= datalen)
			return psprintf("the value of attribute %d starts at byte %u, past the row's %u data bytes",
							attnum + 1, *off, datalen);
		len = slim_value_len_checked(att, tp, datalen, *off);
		if (len == 0)
			return psprintf("the value of attribute %d at byte %u is not sound (length, or a TOAST pointer in a tail)",
							attnum + 1, *off);
		*off += len;
	}
	return NULL;
}

/*
 * Check the tail of a row of len bytes that carries SLIM_HEAP_TAIL against
 * tupdesc, and describe it in *info: NULL when it is sound, else what is
 * wrong.
 */
const char *
slim_check_tail(HeapTupleHeader td, uint32 len, TupleDesc tupdesc,
				SlimTailInfo *info)
{
	int			first = HeapTupleHeaderGetNatts(td);
	uint32		datalen;
	const uint8 *tp;
	int16		positions[MaxTupleAttributeNumber];
	bool		prefix_nulls[MaxTupleAttributeNumber];
	uint32		off = 0;
	uint32		ntail;
	int			encoding;
	int			n = 0;
	int			i;
	const char *problem;

	memset(info, 0, sizeof(SlimTailInfo));
	info->prefix_natts = first;
	if (td->t_hoff > len)
		return psprintf("t_hoff %u lies past the row's %u bytes", td->t_hoff, len);
	if (first > tupdesc->natts)
		return psprintf("the prefix holds %d attributes, the table has %d",
						first, tupdesc->natts);
	datalen = len - td->t_hoff;
	tp = (const uint8 *) td + td->t_hoff;

	/* the prefix: heap's layout */
	for (i = 0; i < first; i++)
	{
		positions[i] = i;
		prefix_nulls[i] = ((td)->t_infomask & HEAP_HASNULL) != 0 &&
			att_isnull(i, td->t_bits);
	}
	problem = slim_walk_values_checked(tupdesc, tp, datalen, positions, first,
									   &off, prefix_nulls);
	if (problem != NULL)
		return problem;

	info->tail_off = off;
	if (off >= datalen)
		return psprintf("the tail header at byte %u lies past the row's %u data bytes",
						off, datalen);
	encoding = tp[off++];
	if (encoding < SLIM_TAIL_RUNS || encoding > SLIM_TAIL_MAX_ENCODING)
		return psprintf("unknown tail encoding %d", encoding);
	info->encoding = (SlimTailEncoding) encoding;
	if (!slim_varint_get_checked(tp, datalen, &off, &ntail))
		return "the tail's attribute count runs past the row";
	if (ntail < 1 || first + ntail > tupdesc->natts)
		return psprintf("the tail covers attributes %d to %d, the table has %d",
						first + 1, first + (int) ntail, tupdesc->natts);
	info->stored_natts = first + ntail;
	info->map_off = off;

	if (encoding == SLIM_TAIL_BITMAP)
	{
		uint32		nbytes = (ntail + 7) / 8;

		if (off + nbytes > datalen)
			return "the tail's bitmap runs past the row";
		for (i = 0; i < (int) ntail; i++)
		{
			if (tp[off + i / 8] & (1 << (i % 8)))
				positions[n++] = first + i;
		}
		if (ntail % 8 != 0 && (tp[off + nbytes - 1] >> (ntail % 8)) != 0)
			return "the tail's bitmap has bits set past its last attribute";
		off += nbytes;
	}
	else
	{
		uint32		pos = 0;

		while (pos < ntail)
		{
			uint32		skip;
			uint32		vals = 1;

			if (!slim_varint_get_checked(tp, datalen, &off, &skip) ||
				(encoding == SLIM_TAIL_RUNS &&
				 !slim_varint_get_checked(tp, datalen, &off, &vals)))
				return "the tail's map runs past the row";
			if (vals == 0 || pos + skip + vals > ntail)
				return psprintf("the tail's map does not add up to its %u attributes",
								ntail);
			pos += skip;
			while (vals-- > 0)
				positions[n++] = first + pos++;
		}
	}
	if (n == 0 || positions[n - 1] != first + (int) ntail - 1)
		return "the tail's last attribute is NULL";
	info->nvalues = n;
	info->values_off = off;

	problem = slim_walk_values_checked(tupdesc, tp, datalen, positions, n,
									   &off, NULL);
	if (problem != NULL)
		return problem;
	info->end_off = off;
	if (off != datalen)
		return psprintf("the tail ends at byte %u, the row at %u", off, datalen);
	return NULL;
}
