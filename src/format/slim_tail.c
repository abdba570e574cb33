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

char *
slim_tail_write_map(char *p, SlimTailEncoding encoding, const int16 *positions,
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

/* the smallest encoding of a map and its length */
static SlimTailEncoding
slim_choose_encoding(const int16 *positions, int n, int first, int ntail,
					 Size *map_len)
{
	Size		runs_len;
	Size		gaps_len;

	slim_measure_map(positions, n, first, &runs_len, &gaps_len);
	return slim_tail_pick_encoding(runs_len, gaps_len, ntail, map_len);
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
	p = slim_tail_write_map(p, encoding, positions, n, prefix_natts, ntail);
	Assert(p == data + values_off);
	end = slim_fill_data(tupdesc, values, isnull, 0, n, ordered, data,
						 values_off, &td->t_infomask);
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
				while (vals-- > 0 && i < ntail)
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
	int			stored_natts = Min(first + (int) (header >> 2), tupdesc->natts);
	int			ntail = stored_natts - first;	/* bounds every array below */
	int16		positions[MaxTupleAttributeNumber];
	int16		ordered[MaxTupleAttributeNumber];
	int			n;
	uint32		off;
	int			k;

	memset(isnull + first, true, stored_natts - first);
	memset(values + first, 0, (stored_natts - first) * sizeof(Datum));
	n = slim_read_map(&p, (SlimTailEncoding) (header & 3), first, ntail,
					  positions);
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
