/*-------------------------------------------------------------------------
 *
 * slim_tail.c
 *	  The tail former: rows with a compressed tail (slimheap.null_bitmap =
 *	  compress).
 *
 * A tail row is a standard heap row of K attributes (its header's natts)
 * followed by an encoded NULL map of attributes K+1 .. T and their values;
 * heap's code reads the prefix and never looks past it.  The map is encoded
 * per row in the shortest of three ways.  docs/format.md gives the layout;
 * slim_tail_read.c decodes such rows, slim_tail_check.c checks them.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/format/slim_tail.c
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

#include "slim_format.h"
#include "slim_tail.h"


/*
 * The 0-based numbers of the non-NULL attributes among [first, end) into
 * positions; returns how many.
 */
static int
slim_collect_values(const bool *isnull, int first, int end, int16 *positions)
{
	int			n = 0;
	int			i;

	for (i = slim_next_value(isnull, first, end); i < end;
		 i = slim_next_value(isnull, i + 1, end))
		positions[n++] = i;
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
	uint8		group[MaxTupleAttributeNumber];
	int			k;

	/* a counting sort by group, each attribute's group looked up once */
	for (k = 0; k < n; k++)
	{
		group[k] = slim_value_group(TupleDescAttr(tupdesc, positions[k]));
		start[group[k] + 1]++;
	}
	for (k = 1; k < 6; k++)
		start[k] += start[k - 1];
	for (k = 0; k < n; k++)
		ordered[start[group[k]]++] = positions[k];
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
 * is not (invariant C4).  The caller has checked C1-C3.  Attributes the
 * tail covers after its last value are stored NULLs (a row that must store
 * its table's fast-default columns: docs/fast-defaults.md): the header
 * then counts them.
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
	int			map_ntail;
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

	Assert(ntail > 0);

	n = slim_collect_values(isnull, prefix_natts, stored_natts, positions);
	map_ntail = n > 0 ? positions[n - 1] + 1 - prefix_natts : 0;
	if (map_ntail > 0)
		encoding = slim_choose_encoding(positions, n, prefix_natts, map_ntail,
										&map_len);
	else
	{
		encoding = SLIM_TAIL_RUNS;	/* an empty map */
		map_len = 0;
	}
	slim_order_values(tupdesc, positions, n, ordered);

	prefix_end = slim_data_size(tupdesc, values, isnull, 0, prefix_natts,
								NULL, 0, &prefix_hasnull, &ignore1, &ignore2);
	values_off = prefix_end +
		slim_tail_header_len(ntail, ntail - map_ntail, encoding) + map_len;
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
	p = slim_tail_header_put(p, ntail, ntail - map_ntail, encoding);
	p = slim_tail_write_map(p, encoding, positions, n, prefix_natts, map_ntail);
	Assert(p == data + values_off);
	end = slim_fill_data(tupdesc, values, isnull, 0, n, ordered, data,
						 values_off, &td->t_infomask);
	Assert(hoff + end == tuple->t_len);
	return tuple;
}
