/*-------------------------------------------------------------------------
 *
 * slim_verify_values.c
 *	  slimheap.verify(): the checks of one tuple, its header and then the
 *	  walk over its values, with every step bounds-checked, for heap's
 *	  standard rows and for the rows of the compress mode (a standard prefix
 *	  and a compressed tail).
 *
 * The walk is our own, not heap_deform_tuple(): it follows the rules by
 * which PostgreSQL's readers find attributes (alignment, fixed lengths,
 * varlena headers, cstrings) and checks each step against the tuple's
 * length, so a tuple that passes can be deformed safely and the data ends
 * exactly where the header says.
 *
 * A row with the tail marker (SLIM_HEAP_TAIL) is walked in two parts: its
 * prefix as a standard row of natts attributes, then its tail.  The tail's
 * header and NULL map are decoded by slim_check_tail() (slim_tail_check.c),
 * the bounds-checking decoder the stats and page_items functions use too;
 * its values are then walked here like the prefix's, for the attributes the
 * decoder found set and in the tail's store order (grouped by alignment),
 * and must end exactly where it says the tail ends.  So the
 * decoder and this walk check each other.  The marker is legitimate in every
 * mode (a table switched from compress to truncate keeps its tail rows).
 * Whether a row should have a tail (invariants C1-C3, docs/format.md)
 * depends on the table's indexes and settings when it was formed, which the
 * page does not record, and is not checked; that a tail row is shorter than
 * its truncate form (C4) depends on its values alone, and is.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/inspect/slim_verify_values.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/toast_compression.h"
#include "access/tupmacs.h"
#include "utils/rel.h"

#include "slimheap.h"
#include "slim_tail.h"
#include "slim_page_check.h"
#include "slim_verify.h"

/* the other t_infomask2 bit PostgreSQL leaves free (htup_details.h) */
#define SLIM_UNUSED_INFOMASK2	0x1000

static bool slim_verify_values(SlimVerifyState *st, HeapTupleHeader tup,
							   Size tuplen, int *stored_natts);

/* Where a walk over a tuple's data stands. */
typedef struct VerifyWalk
{
	const char *data;			/* the tuple's data, at t_hoff */
	Size		datalen;		/* its length */
	Size		off;			/* offset of the next value */
	bool		saw_varwidth;	/* a variable-width value was stored */
	bool		saw_external;	/* a TOAST pointer was stored */
} VerifyWalk;

/*
 * Check one varlena datum stored at data + off, at most avail bytes long.
 * Sets *size to its length and *external when it is a TOAST pointer.
 * Returns false after reporting a problem.
 */
static bool
verify_varlena(SlimVerifyState *st, int attno, const char *ptr, Size avail,
			   Size *size, bool *external)
{
	*external = false;

	if (VARATT_IS_1B_E(ptr))
	{
		varatt_external toast_pointer;
		uint8		tag;
		int32		extsize;

		if (avail < VARHDRSZ_EXTERNAL)
		{
			slim_verify_report(st, "attribute %d: TOAST pointer header extends past the end of the tuple",
						  attno);
			return false;
		}
		tag = VARTAG_1B_E(ptr);
		if (tag != VARTAG_ONDISK)
		{
			slim_verify_report(st, "attribute %d: TOAST pointer has tag %u, but only on-disk pointers (tag %u) can be stored",
						  attno, tag, VARTAG_ONDISK);
			return false;
		}
		*size = VARHDRSZ_EXTERNAL + sizeof(varatt_external);
		if (*size > avail)
		{
			slim_verify_report(st, "attribute %d: TOAST pointer of %zu bytes extends past the end of the tuple (%zu bytes left)",
						  attno, *size, avail);
			return false;
		}
		*external = true;

		/* the pointer is unaligned on the page: copy it out */
		memcpy(&toast_pointer, VARDATA_EXTERNAL(ptr), sizeof(toast_pointer));
		extsize = VARATT_EXTERNAL_GET_EXTSIZE(toast_pointer);
		if (toast_pointer.va_rawsize < VARHDRSZ ||
			toast_pointer.va_rawsize > (int32) (VARLENA_EXTSIZE_MASK + VARHDRSZ))
		{
			slim_verify_report(st, "attribute %d: TOAST pointer has impossible raw size %d",
						  attno, toast_pointer.va_rawsize);
			return false;
		}
		if (VARATT_EXTERNAL_IS_COMPRESSED(toast_pointer))
		{
			uint32		cm = VARATT_EXTERNAL_GET_COMPRESS_METHOD(toast_pointer);

			if (cm != TOAST_PGLZ_COMPRESSION_ID && cm != TOAST_LZ4_COMPRESSION_ID)
			{
				slim_verify_report(st, "attribute %d: TOAST pointer has invalid compression method id %u",
							  attno, cm);
				return false;
			}
		}
		else if (extsize != toast_pointer.va_rawsize - VARHDRSZ)
		{
			slim_verify_report(st, "attribute %d: uncompressed TOAST value has external size %d but raw size %d",
						  attno, extsize, toast_pointer.va_rawsize);
			return false;
		}
		if (!OidIsValid(st->toastrelid))
		{
			slim_verify_report(st, "attribute %d: TOAST pointer found, but the relation has no TOAST table",
						  attno);
			return false;
		}
		if (toast_pointer.va_toastrelid != st->toastrelid)
		{
			slim_verify_report(st, "attribute %d: TOAST pointer names TOAST relation %u, but the relation's is %u",
						  attno, toast_pointer.va_toastrelid, st->toastrelid);
			return false;
		}
		return true;
	}

	if (VARATT_IS_1B(ptr))
	{
		/* a short varlena: one header byte that includes itself */
		*size = VARSIZE_1B(ptr);
		if (*size < VARHDRSZ_SHORT)
		{
			slim_verify_report(st, "attribute %d: short varlena has impossible length %zu",
						  attno, *size);
			return false;
		}
	}
	else
	{
		if (avail < VARHDRSZ)
		{
			slim_verify_report(st, "attribute %d: varlena header extends past the end of the tuple",
						  attno);
			return false;
		}
		/* 4-byte headers are aligned, but copy anyway: the page is ours */
		{
			uint32		header;

			memcpy(&header, ptr, sizeof(header));
			*size = VARSIZE_4B(&header);
		}
		if (*size < VARHDRSZ)
		{
			slim_verify_report(st, "attribute %d: varlena has impossible length %zu",
						  attno, *size);
			return false;
		}
		if (VARATT_IS_4B_C(ptr))
		{
			uint32		tcinfo;
			uint32		cm;

			if (*size < VARHDRSZ_COMPRESSED || avail < VARHDRSZ_COMPRESSED)
			{
				slim_verify_report(st, "attribute %d: compressed varlena of %zu bytes is shorter than its header",
							  attno, *size);
				return false;
			}
			memcpy(&tcinfo, ptr + VARHDRSZ, sizeof(tcinfo));
			cm = tcinfo >> VARLENA_EXTSIZE_BITS;
			if (cm != TOAST_PGLZ_COMPRESSION_ID && cm != TOAST_LZ4_COMPRESSION_ID)
			{
				slim_verify_report(st, "attribute %d: compressed varlena has invalid compression method id %u",
							  attno, cm);
				return false;
			}
		}
	}

	if (*size > avail)
	{
		slim_verify_report(st, "attribute %d: varlena of %zu bytes extends past the end of the tuple (%zu bytes left)",
					  attno, *size, avail);
		return false;
	}
	return true;
}

/*
 * Walk the values of the n attributes attnums[] (0-based, non-NULL, in the
 * order they are stored) from w->off on, the way PostgreSQL's readers find
 * them.  A TOAST pointer is accepted in the standard part of a row only: a
 * compressed tail never holds one.  Returns false after reporting a
 * problem.
 */
static bool
verify_walk(SlimVerifyState *st, VerifyWalk *w, const int16 *attnums, int n,
			bool in_tail)
{
	const char *data = w->data;
	Size		datalen = w->datalen;
	Size		off = w->off;
	int			k;

	for (k = 0; k < n; k++)
	{
		Form_pg_attribute att = TupleDescAttr(st->tupdesc, attnums[k]);
		int			attno = attnums[k] + 1;
		Size		size;

		if (att->attlen > 0)
		{
			off = att_align_nominal(off, att->attalign);
			size = att->attlen;
			if (off > datalen || size > datalen - off)
			{
				slim_verify_report(st, "attribute %d of length %zu at data offset %zu extends past the end of the tuple data (%zu bytes)",
							  attno, size, off, datalen);
				return false;
			}
		}
		else if (att->attlen == -1)
		{
			bool		external;

			/*
			 * Readers look at the byte at the unaligned position: a non-zero
			 * byte starts a short or external varlena there; a zero byte is
			 * padding before an aligned 4-byte header.
			 */
			if (off >= datalen)
			{
				slim_verify_report(st, "attribute %d starts at data offset %zu, past the end of the tuple data (%zu bytes)",
							  attno, off, datalen);
				return false;
			}
			off = att_align_pointer(off, att->attalign, att->attlen, data + off);
			if (off >= datalen)
			{
				slim_verify_report(st, "attribute %d starts at data offset %zu, past the end of the tuple data (%zu bytes)",
							  attno, off, datalen);
				return false;
			}
			if (!verify_varlena(st, attno, data + off, datalen - off, &size,
								&external))
				return false;
			if (external && in_tail)
			{
				slim_verify_report(st, "attribute %d in the compressed tail is a TOAST pointer, which a tail never holds",
							  attno);
				return false;
			}
			w->saw_varwidth = true;
			w->saw_external |= external;
		}
		else if (att->attlen == -2)
		{
			const char *end;

			off = att_align_nominal(off, att->attalign);
			if (off >= datalen)
			{
				slim_verify_report(st, "attribute %d starts at data offset %zu, past the end of the tuple data (%zu bytes)",
							  attno, off, datalen);
				return false;
			}
			end = memchr(data + off, '\0', datalen - off);
			if (end == NULL)
			{
				slim_verify_report(st, "attribute %d: cstring is not terminated within the tuple",
							  attno);
				return false;
			}
			size = end - (data + off) + 1;
			w->saw_varwidth = true;
		}
		else
		{
			/* the descriptor comes from the catalog; this cannot happen */
			elog(ERROR, "attribute %d of \"%s\" has invalid length %d",
				 attno, RelationGetRelationName(st->rel), att->attlen);
		}
		off += size;
	}

	w->off = off;
	return true;
}

/*
 * The compressed tail of a row whose prefix of natts attributes the walk
 * has passed (w->off is where the prefix data ends).  Sets *stored_natts to
 * the attributes prefix and tail store.  Returns false after reporting a
 * problem.
 */
static bool
verify_tail(SlimVerifyState *st, HeapTupleHeader tup, Size tuplen, int natts,
			VerifyWalk *w, int *stored_natts)
{
	SlimTailInfo info;
	const char *problem;
	int			nvalues = 0;
	int			map_last;
	int			i;

	/* heap's readers would take the tail for bytes past the row's data */
	if (!st->is_slimheap)
	{
		slim_verify_report(st, "compressed-tail marker (t_infomask2 0x%04x) set on a row of a table that is not slimheap",
					  SLIM_HEAP_TAIL);
		return false;
	}
	if (tup->t_infomask & HEAP_HASEXTERNAL)
	{
		slim_verify_report(st, "HEAP_HASEXTERNAL is set on a row with a compressed tail, which never holds TOAST pointers");
		return false;
	}

	problem = slim_check_tail(tup, (uint32) tuplen, st->tupdesc, &info);
	if (problem != NULL)
	{
		slim_verify_report(st, "compressed tail is invalid: %s", problem);
		return false;
	}

	/* the decoder and the walk must agree on where the tail lies */
	if (info.prefix_natts != natts || info.tail_off != w->off ||
		info.stored_natts <= natts || info.stored_natts > st->relnatts)
	{
		slim_verify_report(st, "compressed tail of attributes %d..%d at data offset %u does not follow a prefix of %d attributes ending at data offset %zu",
					  info.prefix_natts + 1, info.stored_natts, info.tail_off,
					  natts, w->off);
		return false;
	}

	slim_deform_tail(tup, st->tupdesc, info.tail_off, st->values, st->isnull);
	for (i = natts; i < info.stored_natts; i++)
	{
		if (!st->isnull[i])
			st->positions[nvalues++] = (int16) i;
	}
	/* the last the map covers is set; the stored NULLs after it are NULL */
	map_last = info.stored_natts - info.trailing_nulls - 1;
	if ((map_last >= natts && st->isnull[map_last]) ||
		nvalues != info.nvalues)
	{
		slim_verify_report(st, "NULL map of the compressed tail (%s) gives %d values for attributes %d..%d, the last %s, but the tail declares %d",
					  slim_tail_encoding_name(info.encoding), nvalues,
					  natts + 1, map_last + 1,
					  map_last >= natts && st->isnull[map_last] ? "NULL" : "set",
					  info.nvalues);
		return false;
	}

	/* the values lie grouped by alignment (docs/format.md, store order) */
	slim_order_values(st->tupdesc, st->positions, nvalues, st->ordered);
	w->off = info.values_off;
	if (!verify_walk(st, w, st->ordered, nvalues, true))
		return false;
	if (w->off != info.end_off)
	{
		slim_verify_report(st, "values of the compressed tail end at data offset %zu, but its decoder ends them at %u",
					  w->off, info.end_off);
		return false;
	}

	*stored_natts = info.stored_natts;
	return true;
}

/*
 * Invariant C4 of a sound tail row: it is shorter on the page than its
 * truncate form.  That form stores exactly the tail row's attributes
 * (stored_natts: through its last value, or through the stored NULLs that
 * end it, which the truncate form keeps with a bitmap), so it is formed
 * here from the row's own values, with the attributes past them NULL as
 * stored, and stored_natts as its floor.
 * Returns false after reporting a problem.
 */
static bool
verify_tail_shorter(SlimVerifyState *st, HeapTupleHeader tup, Size tuplen,
					int stored_natts)
{
	HeapTupleData tuple;
	HeapTuple	truncated;
	Size		truncate_len;
	int			i;

	tuple.t_data = tup;
	tuple.t_len = (uint32) tuplen;
	ItemPointerSetInvalid(&tuple.t_self);
	tuple.t_tableOid = RelationGetRelid(st->rel);
	slim_deform_tuple(&tuple, st->tupdesc, st->values, st->isnull);
	for (i = stored_natts; i < st->relnatts; i++)
		st->isnull[i] = true;

	truncated = slim_form_tuple(st->tupdesc, st->values, st->isnull,
								SLIM_NULL_BITMAP_TRUNCATE, stored_natts,
								st->relnatts);
	truncate_len = truncated->t_len;
	heap_freetuple(truncated);

	if (MAXALIGN(tuplen) >= MAXALIGN(truncate_len))
	{
		slim_verify_report(st, "row with a compressed tail takes %zu bytes on the page, not fewer than its truncate form's %zu (invariant C4)",
					  (Size) MAXALIGN(tuplen), (Size) MAXALIGN(truncate_len));
		return false;
	}
	return true;
}

/*
 * Walk the values of a tuple whose header passed the checks of
 * verify_tuple(): the natts attributes its header declares and, with the
 * tail marker, its compressed tail.  The data must end exactly where the
 * tuple does.  Sets *stored_natts to the attributes the row stores.
 * Returns false after reporting a problem.
 */
static bool
slim_verify_values(SlimVerifyState *st, HeapTupleHeader tup, Size tuplen,
				  int *stored_natts)
{
	int			natts = HeapTupleHeaderGetNatts(tup);
	bool		hasnulls = (tup->t_infomask & HEAP_HASNULL) != 0;
	VerifyWalk	w;
	int			n = 0;
	int			i;

	w.data = (const char *) tup + tup->t_hoff;
	w.datalen = tuplen - tup->t_hoff;
	w.off = 0;
	w.saw_varwidth = false;
	w.saw_external = false;

	/* the prefix, or the whole of a standard row: attribute order */
	for (i = 0; i < natts; i++)
	{
		if (!(hasnulls && att_isnull(i, tup->t_bits)))
			st->positions[n++] = (int16) i;
	}
	if (!verify_walk(st, &w, st->positions, n, false))
		return false;

	*stored_natts = natts;
	if (SlimHeaderHasTail(tup) &&
		!verify_tail(st, tup, tuplen, natts, &w, stored_natts))
		return false;

	if (w.off != w.datalen)
	{
		slim_verify_report(st, "tuple data is %zu bytes, but its %d attributes end at %zu bytes",
					  w.datalen, *stored_natts, w.off);
		return false;
	}

	/*
	 * Readers rely on these flags to decide whether cached attribute offsets
	 * are usable and whether TOAST values must be deleted with the row.
	 */
	if (w.saw_varwidth && !(tup->t_infomask & HEAP_HASVARWIDTH))
	{
		slim_verify_report(st, "variable-width attribute stored, but HEAP_HASVARWIDTH is not set");
		return false;
	}
	if (w.saw_external && !(tup->t_infomask & HEAP_HASEXTERNAL))
	{
		slim_verify_report(st, "TOAST pointer stored, but HEAP_HASEXTERNAL is not set");
		return false;
	}

	/* the row can be deformed safely now */
	if (SlimHeaderHasTail(tup) &&
		!verify_tail_shorter(st, tup, tuplen, *stored_natts))
		return false;
	return true;
}

/*
 * Check one LP_NORMAL item whose storage lies within the page.  Returns true
 * when the tuple is sound; *natts is then the number of attributes it
 * stores (for a row with a compressed tail, its prefix and its tail).
 */
bool
slim_verify_row(SlimVerifyState *st, HeapTupleHeader tup, Size tuplen, int *natts)
{
	uint16		infomask = tup->t_infomask;
	uint16		infomask2 = tup->t_infomask2;
	Size		expected_hoff;
	bool		sound = true;

	*natts = HeapTupleHeaderGetNatts(tup);

	switch (slim_check_tuple_header(tup, tuplen, st->relnatts))
	{
		case SLIM_HEADER_HOFF_OUTSIDE:
		case SLIM_HEADER_HOFF_UNALIGNED:
			slim_verify_report(st, "t_hoff %u is invalid for a tuple of %zu bytes (must be maximally aligned, at least %zu and at most the tuple length)",
						  tup->t_hoff, tuplen, (Size) MAXALIGN(SizeofHeapTupleHeader));
			return false;
		case SLIM_HEADER_NATTS:
			slim_verify_report(st, "number of attributes %d exceeds the relation's %d",
						  *natts, st->relnatts);
			return false;
		case SLIM_HEADER_BITMAP:	/* reported below, with t_hoff */
		case SLIM_HEADER_SOUND:
			break;
	}

	expected_hoff = SizeofHeapTupleHeader;
	if (infomask & HEAP_HASNULL)
		expected_hoff += BITMAPLEN(*natts);
	expected_hoff = MAXALIGN(expected_hoff);
	if (tup->t_hoff != expected_hoff)
	{
		if (infomask & HEAP_HASNULL)
			slim_verify_report(st, "t_hoff %u does not match %d attributes with a NULL bitmap (expected %zu)",
						  tup->t_hoff, *natts, expected_hoff);
		else
			slim_verify_report(st, "t_hoff %u does not match a tuple without a NULL bitmap (expected %zu)",
						  tup->t_hoff, expected_hoff);
		return false;
	}

	if (infomask2 & SLIM_UNUSED_INFOMASK2)
	{
		slim_verify_report(st, "unknown t_infomask2 bit 0x%04x is set",
					  SLIM_UNUSED_INFOMASK2);
		sound = false;
	}

	/*
	 * Combinations of visibility bits that no code writes.  (HEAP_KEYS_UPDATED
	 * with HEAP_XMAX_LOCK_ONLY is not one: SELECT FOR UPDATE writes it.)
	 * They do not affect where attributes are, so the walk below still runs.
	 */
	if ((infomask & HEAP_XMAX_COMMITTED) && (infomask & HEAP_XMAX_INVALID))
	{
		slim_verify_report(st, "HEAP_XMAX_COMMITTED and HEAP_XMAX_INVALID are both set (the composite-datum marker) on a stored tuple");
		sound = false;
	}
	if ((infomask & HEAP_XMAX_COMMITTED) && (infomask & HEAP_XMAX_IS_MULTI))
	{
		slim_verify_report(st, "multixact xmax is marked committed");
		sound = false;
	}

	/* the values, the compressed tail's included (SLIM_HEAP_TAIL) */
	if (!slim_verify_values(st, tup, tuplen, natts))
		return false;
	return sound;
}

/*
 * The first problem verify() would report for the tuple of an item that lies
 * within its page, or NULL when the tuple can be deformed safely.
 */
const char *
slim_verify_tuple(SlimVerifyState *st, HeapTupleHeader tup, Size tuplen)
{
	int			natts;

	Assert(st->tupstore == NULL);
	st->problem = NULL;
	(void) slim_verify_row(st, tup, tuplen, &natts);
	return st->problem;
}
