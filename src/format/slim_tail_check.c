/*-------------------------------------------------------------------------
 *
 * slim_tail_check.c
 *	  The checked decoder of compressed tails, for slimheap.verify: every
 *	  read stays inside the row, and whatever is wrong is said.
 *
 * slim_tail.c decodes the rows this build formed and trusts them; this file
 * trusts nothing of a row but its length.  docs/format.md is the layout.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/format/slim_tail_check.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupmacs.h"

#include "slim_tail.h"

/* a varint inside the row's datalen bytes (at most three bytes) */
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
	int16		ordered[MaxTupleAttributeNumber];
	bool		prefix_nulls[MaxTupleAttributeNumber];
	uint32		off = 0;
	uint32		header;
	uint32		ntail;
	uint32		map_ntail;
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
	if (!slim_varint_get_checked(tp, datalen, &off, &header))
		return psprintf("the tail header at byte %u runs past the row's %u data bytes",
						info->tail_off, datalen);
	encoding = header & 3;
	ntail = header >> 2;
	map_ntail = ntail;
	if (encoding == 0)
	{
		/* a tail that ends with stored NULLs: their count, the map's form */
		uint32		off0 = off;

		if (!slim_varint_get_checked(tp, datalen, &off, &header))
			return psprintf("the second tail header at byte %u runs past the row's %u data bytes",
							off0, datalen);
		encoding = header & 3;
		if (encoding == 0)
			return "unknown tail encoding 0 in the second tail header";
		if ((header >> 2) < 1 || (header >> 2) > ntail)
			return psprintf("the tail ends with %u stored NULLs of its %u attributes",
							header >> 2, ntail);
		map_ntail = ntail - (header >> 2);
		info->trailing_nulls = (int) (header >> 2);
	}
	if (encoding < SLIM_TAIL_RUNS || encoding > SLIM_TAIL_MAX_ENCODING)
		return psprintf("unknown tail encoding %d", encoding);
	info->encoding = (SlimTailEncoding) encoding;
	if (ntail < 1 || first + ntail > tupdesc->natts)
		return psprintf("the tail covers attributes %d to %d, the table has %d",
						first + 1, first + (int) ntail, tupdesc->natts);
	info->stored_natts = first + ntail;
	info->map_off = off;

	if (encoding == SLIM_TAIL_BITMAP)
	{
		uint32		nbytes = (map_ntail + 7) / 8;

		if (off + nbytes > datalen)
			return "the tail's bitmap runs past the row";
		for (i = 0; i < (int) map_ntail; i++)
		{
			if (tp[off + i / 8] & (1 << (i % 8)))
				positions[n++] = first + i;
		}
		if (map_ntail % 8 != 0 && (tp[off + nbytes - 1] >> (map_ntail % 8)) != 0)
			return "the tail's bitmap has bits set past its last attribute";
		off += nbytes;
	}
	else
	{
		uint32		pos = 0;

		while (pos < map_ntail)
		{
			uint32		skip;
			uint32		vals = 1;

			if (!slim_varint_get_checked(tp, datalen, &off, &skip) ||
				(encoding == SLIM_TAIL_RUNS &&
				 !slim_varint_get_checked(tp, datalen, &off, &vals)))
				return "the tail's map runs past the row";
			if (vals == 0 || pos + skip + vals > map_ntail)
				return psprintf("the tail's map does not add up to its %u attributes",
								map_ntail);
			pos += skip;
			while (vals-- > 0)
				positions[n++] = first + pos++;
		}
	}
	/* the map ends with a value; only a tail of stored NULLs alone has none */
	if (map_ntail == 0 ? n != 0 :
		(n == 0 || positions[n - 1] != first + (int) map_ntail - 1))
		return map_ntail == ntail ? "the tail's last attribute is NULL" :
			"the tail's map does not end with a value before its stored NULLs";
	info->nvalues = n;
	info->values_off = off;

	slim_order_values(tupdesc, positions, n, ordered);
	problem = slim_walk_values_checked(tupdesc, tp, datalen, ordered, n,
									   &off, NULL);
	if (problem != NULL)
		return problem;
	info->end_off = off;
	if (off != datalen)
		return psprintf("the tail ends at byte %u, the row at %u", off, datalen);
	return NULL;
}
