/*-------------------------------------------------------------------------
 *
 * slim_tail_transcode.c
 *	  Making the tail row of a standard row from its bytes, without
 *	  deforming it: INSERT ... SELECT from another table, CREATE TABLE AS.
 *
 * heap hands such a row over as it is (one copy); a compress table must
 * re-lay it out.  Its bitmap gives the map, walked eight bytes at a time so
 * that NULLs cost nothing each; its prefix bytes are copied as they are;
 * each fixed-length value goes into its group's buffer, each varlena is
 * copied last.
 * docs/format.md has the layout.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/format/slim_tail_transcode.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"

#include "slim_compat.h"
#include "slim_tail.h"

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
		slim_att_info_set(&info[i], TupleDescAttr(tupdesc, i));
	return info;
}

/* a varlena of a source row, as the transcoder copies it */
typedef struct SlimTailVarlena
{
	uint16		src_off;		/* where it is in the source's data */
	uint16		len;			/* its bytes */
	uint16		alignmask;		/* alignment - 1 (0 for a 1-byte header) */
} SlimTailVarlena;

/*
 * Room for one fixed group's bytes.  No tail worth keeping is longer than
 * the row in truncate form, itself at most TOAST_TUPLE_THRESHOLD (C2); the
 * eight more take the zeroing store at the end.
 */
#define SLIM_GROUP_ROOM		(TOAST_TUPLE_THRESHOLD + 8)

/*
 * The tail row of a standard stored row (source: a row of any table with
 * tupdesc's layout, its attributes past its natts NULL), made from its
 * bytes without deforming it: its bitmap gives the map, its values are
 * copied.  NULL when no tail may be made of it, the tail is not shorter,
 * or no NULL comes before the last value (C2, C4: the former keeps such a
 * row in the truncate form too); prefix_natts is the new row's K, which
 * the caller takes from its floors (docs/format.md, "Names").
 *
 * The tail stores its fixed-length values by group, each group from a
 * start aligned to it: so each is laid out once, as it is met, in its
 * group's own buffer, which then moves into the row with one memcpy.  The
 * varlenas come last and are copied from the source at the end.
 */
HeapTuple
slim_transcode_tail_tuple(HeapTuple source, TupleDesc tupdesc,
						  const SlimAttInfo *attinfo, int prefix_natts)
{
	HeapTupleHeader src = source->t_data;
	int			src_natts = Min(HeapTupleHeaderGetNatts(src), tupdesc->natts);
	const char *tp = (const char *) src + src->t_hoff;
	Size		data_len = source->t_len - src->t_hoff;
	int			bitmap_len = BITMAPLEN(src_natts);
	int16		positions[MaxTupleAttributeNumber];
	uint8		gaps[MaxTupleAttributeNumber];
	SlimTailVarlena vars[MaxTupleAttributeNumber];
	char		group_bytes[SLIM_FIXED_GROUPS][SLIM_GROUP_ROOM];
	uint32		group_len[SLIM_FIXED_GROUPS] = {0};
	int			n = 0;
	int			nvars = 0;
	int			next = prefix_natts;	/* the first attribute not mapped */
	int			nonzero_gaps = 0;
	int			long_gaps = 0;
	Size		runs_len;
	Size		gaps_len;
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
	Size		alloc_len;
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
	 * looked up once.  The map lengths follow from the gaps: one varint per
	 * gap (GAPS), two per run, a run starting after each nonzero gap (RUNS).
	 */
	for (k = prefix_natts / 8; k < bitmap_len; k += 8)
	{
		uint64		word = 0;
		int			valid = src_natts - k * 8;

		if (k + 8 <= bitmap_len)
			memcpy(&word, &src->t_bits[k], sizeof(word));
		else
			memcpy(&word, &src->t_bits[k], bitmap_len - k);
		if (k == prefix_natts / 8)
			word &= ~UINT64CONST(0) << (prefix_natts % 8);
		if (valid < 64)
			word &= (UINT64CONST(1) << valid) - 1;
		while (word != 0)
		{
			SlimAttInfo att;
			uint32		len;
			uint32		mask;
			int			gap;

			i = k * 8 + pg_rightmost_one_pos64(word);
			word &= word - 1;
			att = attinfo[i];
			mask = att.alignmask;
			if (likely(att.isfixed))
			{
				char	   *group = group_bytes[att.group];
				uint32		at = group_len[att.group];
				const char *from;
				char	   *to;

				off = (off + mask) & ~mask;
				len = att.attlen;
				from = tp + off;
				/* zeroes the padding; at <= TOAST_TUPLE_THRESHOLD */
				memset(group + at, 0, 8);
				at = (at + mask) & ~mask;
				if (at + len > TOAST_TUPLE_THRESHOLD)
					return NULL;
				to = group + at;
				/* single moves: most tail values are small */
				switch (len)
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
						memcpy(to, from, len);
						break;
				}
				group_len[att.group] = at + len;
			}
			else
			{
				if (att.attlen == -1 && VARATT_NOT_PAD_BYTE(tp + off) &&
					VARATT_IS_SHORT(tp + off))
				{
					/* a 1-byte header: unaligned, here and in the tail */
					len = VARSIZE_SHORT(tp + off);
					mask = 0;
				}
				else
				{
					off = (off + mask) & ~mask;
					len = att_addlength_pointer(0, att.attlen, tp + off);
				}
				vars[nvars].src_off = off;
				vars[nvars].len = len;
				vars[nvars].alignmask = mask;
				nvars++;
			}
			off += len;

			gap = i - next;
			next = i + 1;
			gaps[n] = (uint8) gap;
			nonzero_gaps += gap != 0;
			long_gaps += gap >= 0x80;
			positions[n++] = i;
		}
	}
	if (n == 0)
		return NULL;
	ntail = positions[n - 1] + 1 - prefix_natts;

	/*
	 * No NULL before the last value: the former stores such a row in the
	 * truncate form (no bitmap, heap's reads), and so does this
	 */
	if (!prefix_hasnull && n == ntail)
		return NULL;
	truncate_len = MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
							BITMAPLEN(prefix_natts + ntail)) + off;

	/* varints below 2^14 take one byte, or two from 128 on */
	gaps_len = n + long_gaps;
	runs_len = 2 * (nonzero_gaps + (positions[0] == prefix_natts)) +
		long_gaps;
	if (n >= 0x80)
	{
		/* a run of 128 values or more takes a second byte: count exactly */
		int			run = 1;

		for (k = 1; k <= n; k++)
		{
			if (k < n && positions[k] == positions[k - 1] + 1)
				run++;
			else
			{
				runs_len += run >= 0x80;
				run = 1;
			}
		}
	}
	encoding = slim_tail_pick_encoding(runs_len, gaps_len, ntail, &map_len);
	header = SLIM_TAIL_HEADER(ntail, encoding);

	/*
	 * Room for the truncate form is room enough for a tail worth keeping:
	 * lay the values out as they are copied, and give up if they pass it.
	 */
	hoff = MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
					(prefix_hasnull ? BITMAPLEN(prefix_natts) : 0));
	values_off = prefix_end + slim_varint_len(header) + map_len;
	alloc_len = MAXALIGN(truncate_len);
	if (MAXALIGN(hoff + values_off) >= alloc_len)
		return NULL;

	/* MAXALIGN(hoff + end) >= alloc_len: end >= limit */
	limit = alloc_len - hoff - (MAXIMUM_ALIGNOF - 1);
	off = values_off;
	for (k = 0; k < SLIM_FIXED_GROUPS; k++)
	{
		if (group_len[k] == 0)
			continue;
		off = TYPEALIGN(slim_group_align[k], off) + group_len[k];
		if (off >= limit)
			return NULL;
	}

	/*
	 * Only the header is zeroed: every data byte up to t_len is written
	 * below, padding included (eight zero bytes before each group and
	 * varlena); the MAXALIGN slack past t_len is never copied.
	 */
	tuple = (HeapTuple) palloc(HEAPTUPLESIZE + alloc_len);
	td = (HeapTupleHeader) ((char *) tuple + HEAPTUPLESIZE);
	tuple->t_data = td;
	ItemPointerSetInvalid(&tuple->t_self);
	tuple->t_tableOid = InvalidOid;
	memset(td, 0, hoff);
	data = (char *) td + hoff;

	off = values_off;
	for (k = 0; k < SLIM_FIXED_GROUPS; k++)
	{
		if (group_len[k] == 0)
			continue;
		/* off < limit: the eight bytes fit in the allocation */
		memset(data + off, 0, 8);
		off = TYPEALIGN(slim_group_align[k], off);
		memcpy(data + off, group_bytes[k], group_len[k]);
		off += group_len[k];
	}
	for (k = 0; k < nvars; k++)
	{
		const SlimTailVarlena *v = &vars[k];

		memset(data + off, 0, 8);
		off = (off + v->alignmask) & ~(uint32) v->alignmask;
		if (off + v->len >= limit)
		{
			pfree(tuple);
			return NULL;
		}
		memcpy(data + off, tp + v->src_off, v->len);
		off += v->len;
	}

	/* the header heap_form_tuple() would write for this length */
	tuple->t_len = hoff + off;
	HeapTupleHeaderSetNatts(td, prefix_natts);
	td->t_hoff = hoff;
	slim_tuple_set_datum(td, tupdesc, tuple->t_len);
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
	if (encoding == SLIM_TAIL_GAPS && long_gaps == 0)
	{
		memcpy(p, gaps, n);
		p += n;
	}
	else
	{
		/* the bitmap encoding sets bits in zeroed bytes */
		memset(p, 0, map_len);
		p = slim_tail_write_map(p, encoding, positions, n, prefix_natts,
								ntail);
	}
	Assert(p == data + values_off);
	return tuple;
}
