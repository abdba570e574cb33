/*-------------------------------------------------------------------------
 *
 * slim_tuple.c
 *	  Forming heap tuples whose NULL bitmap stops at the last stored
 *	  attribute.
 *
 * A heap tuple header records how many attributes the tuple stores (natts);
 * every reader of heap tuples in core returns the column's "missing" value
 * (NULL, or the fast default of a column added with ADD COLUMN ... DEFAULT)
 * for attributes past it.  So a row whose trailing attributes are NULL can be
 * stored with a smaller natts, a bitmap that covers only the stored
 * attributes, and no bitmap at all when none of those is NULL.  The result is
 * a standard heap tuple: nothing that reads it needs to know about slimheap.
 *
 * The same header can be given to a tuple that is already formed (a row of
 * another table, INSERT ... SELECT) without touching its data, and taken
 * back: copies of a row that leave slimheap get every attribute again, so
 * that no other table reads its own fast defaults where the row has NULLs
 * (docs/slot.md).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/tupdesc_details.h"
#include "catalog/pg_type.h"
#include "port/pg_bitutils.h"
#include "utils/expandeddatum.h"

#include "slim_compat.h"
#include "slim_tail.h"
#include "slimheap.h"

/*
 * The number of leading attributes that rows of a relation with this
 * descriptor must always store (invariant T1): up to the last column that
 * has a non-NULL missing value.  Were such a column's NULL left out of a
 * row, readers would return the fast default in its place.  This is the one
 * place the rule is written; see slim_missing_natts_upto().
 */
int
slim_missing_natts(TupleDesc tupdesc)
{
	return slim_missing_natts_upto(tupdesc, tupdesc->natts);
}

/*
 * The same floor for a row whose attributes after the first natts do not
 * count: the last of the first natts columns that has a non-NULL missing
 * value, or 0.
 */
int
slim_missing_natts_upto(TupleDesc tupdesc, int natts)
{
	AttrMissing *missing;
	int			i;

	if (tupdesc->constr == NULL || tupdesc->constr->missing == NULL)
		return 0;

	missing = tupdesc->constr->missing;
	for (i = Min(natts, tupdesc->natts) - 1; i >= 0; i--)
	{
		if (missing[i].am_present)
			return i + 1;
	}
	return 0;
}

/*
 * How many attributes a row must store: through its last non-NULL attribute,
 * and never fewer than min_natts (see slim_missing_natts).
 */
int
slim_stored_natts(TupleDesc tupdesc, const bool *isnull, int min_natts)
{
	int			natts = tupdesc->natts;

	/*
	 * Wide sparse rows end in hundreds of NULLs: skip them eight flags at a
	 * time while all eight are plain "true".  Anything else is decided one
	 * flag at a time below.
	 */
	while (natts - 8 >= min_natts)
	{
		uint64		flags;

		memcpy(&flags, &isnull[natts - 8], sizeof(flags));
		if (flags != UINT64CONST(0x0101010101010101))
			break;
		natts -= 8;
	}
	while (natts > min_natts && isnull[natts - 1])
		natts--;
	return natts;
}


/*
 * Where the data of attributes [from, to) (or of attnums[from .. to - 1])
 * ends when it starts at offset off of a row's MAXALIGNed data area, laid out the way heap_fill_tuple() lays
 * values out.  *hasnull is set when one of them is NULL, *external when one
 * is a TOAST pointer, *toastable when one is a varlena the toaster could
 * compress or move out of line.
 */
Size
slim_data_size(TupleDesc tupdesc, const Datum *values, const bool *isnull,
			   int from, int to, const int16 *attnums, Size off,
			   bool *hasnull, bool *external, bool *toastable)
{
	Size		len = off;
	int			k;

	*hasnull = false;
	*external = false;
	*toastable = false;
	for (k = from; k < to; k++)
	{
		int			i = attnums != NULL ? attnums[k] : k;
		Form_pg_attribute att;
		Pointer		val;

		if (isnull[i])
		{
			*hasnull = true;
			continue;
		}
		att = TupleDescAttr(tupdesc, i);
		val = DatumGetPointer(values[i]);

		if (att->attlen == -1 && VARATT_IS_EXTERNAL(val) &&
			!VARATT_IS_EXTERNAL_EXPANDED(val))
			*external = true;
		if (att->attlen == -1 && att->attstorage != TYPSTORAGE_PLAIN)
		{
			*toastable = true;
			/* stored with a 1-byte header, unaligned */
			if (VARATT_CAN_MAKE_SHORT(val))
			{
				len += VARATT_CONVERTED_SHORT_SIZE(val);
				continue;
			}
		}
		if (att->attlen == -1 && VARATT_IS_EXTERNAL_EXPANDED(val))
		{
			/* flattened into the row */
			len = att_align_nominal(len, att->attalign);
			len += EOH_get_flat_size(DatumGetEOHP(values[i]));
			continue;
		}
		len = att_align_datum(len, att->attalign, att->attlen, values[i]);
		len = att_addlength_datum(len, att->attlen, values[i]);
	}
	return len;
}

/*
 * Write the values of attributes [from, to) (or of attnums[from .. to - 1])
 * at offset off of start (zeroed,
 * MAXALIGNed memory of the size slim_data_size() gave), byte for byte as
 * heap does, and the flags that describe them into *infomask.  Returns
 * where they end.
 */
Size
slim_fill_data(TupleDesc tupdesc, const Datum *values, const bool *isnull,
			   int from, int to, const int16 *attnums, char *start, Size off,
			   uint16 *infomask)
{
	char	   *data = start + off;
	int			k;

	for (k = from; k < to; k++)
	{
		int			i = attnums != NULL ? attnums[k] : k;
		Form_pg_attribute att;
		Pointer		val;
		Size		len;

		if (isnull[i])
			continue;
		att = TupleDescAttr(tupdesc, i);
		val = DatumGetPointer(values[i]);

		if (att->attbyval)
		{
			/* alignment is relative to the MAXALIGNed start of the data */
			data = start + att_align_nominal(data - start, att->attalign);
			store_att_byval(data, values[i], att->attlen);
			len = att->attlen;
		}
		else if (att->attlen == -1)
		{
			*infomask |= HEAP_HASVARWIDTH;
			if (VARATT_IS_EXTERNAL_EXPANDED(val))
			{
				ExpandedObjectHeader *eoh = DatumGetEOHP(values[i]);

				data = start + att_align_nominal(data - start, att->attalign);
				len = EOH_get_flat_size(eoh);
				EOH_flatten_into(eoh, data, len);
			}
			else if (VARATT_IS_EXTERNAL(val))
			{
				/* a TOAST pointer: copied as it is, unaligned */
				*infomask |= HEAP_HASEXTERNAL;
				len = VARSIZE_EXTERNAL(val);
				memcpy(data, val, len);
			}
			else if (VARATT_IS_SHORT(val))
			{
				len = VARSIZE_SHORT(val);
				memcpy(data, val, len);
			}
			else if (att->attstorage != TYPSTORAGE_PLAIN &&
					 VARATT_CAN_MAKE_SHORT(val))
			{
				/* give the value the 1-byte header heap gives it */
				len = VARATT_CONVERTED_SHORT_SIZE(val);
				SET_VARSIZE_SHORT(data, len);
				memcpy(data + 1, VARDATA(val), len - 1);
			}
			else
			{
				data = start + att_align_nominal(data - start, att->attalign);
				len = VARSIZE(val);
				memcpy(data, val, len);
			}
		}
		else if (att->attlen == -2)
		{
			/* cstring */
			*infomask |= HEAP_HASVARWIDTH;
			data = start + att_align_nominal(data - start, att->attalign);
			len = strlen(val) + 1;
			memcpy(data, val, len);
		}
		else
		{
			data = start + att_align_nominal(data - start, att->attalign);
			len = att->attlen;
			memcpy(data, val, len);
		}
		data += len;
	}
	return data - start;
}

/*
 * A zeroed tuple of len bytes whose header stores natts attributes, with
 * hoff and, when hasnull, the bitmap of the first natts flags of isnull.
 * The caller fills in the data.
 */
HeapTuple
slim_alloc_tuple(TupleDesc tupdesc, int natts, Size hoff, Size len,
				 bool hasnull, const bool *isnull)
{
	HeapTuple	tuple;
	HeapTupleHeader td;
	int			i;

	tuple = (HeapTuple) palloc0(HEAPTUPLESIZE + len);
	td = (HeapTupleHeader) ((char *) tuple + HEAPTUPLESIZE);
	tuple->t_data = td;
	tuple->t_len = len;
	ItemPointerSetInvalid(&tuple->t_self);
	tuple->t_tableOid = InvalidOid;

	/*
	 * slim_tuple_set_datum() fills in the composite-datum fields (length,
	 * type, typmod and, on 15.20 and later 15.x, the version of a versioned
	 * row type) and may read natts from the header, so natts goes first.
	 */
	HeapTupleHeaderSetNatts(td, natts);
	td->t_hoff = hoff;
	slim_tuple_set_datum(td, tupdesc, len);

	td->t_infomask &= ~(HEAP_HASNULL | HEAP_HASVARWIDTH | HEAP_HASEXTERNAL);
	if (hasnull)
	{
		td->t_infomask |= HEAP_HASNULL;
		/* palloc0 left every bit 0 (NULL): set those of the values */
		for (i = 0; i < natts; i++)
		{
			if (!isnull[i])
				td->t_bits[i >> 3] |= 1 << (i & 7);
		}
	}
	return tuple;
}

/*
 * Form a heap tuple from values and isnull arrays that match tupdesc.
 *
 * SLIM_NULL_BITMAP_FULL returns exactly what heap_form_tuple() returns.
 * SLIM_NULL_BITMAP_TRUNCATE leaves out trailing NULL attributes beyond
 * min_natts and omits the bitmap when none of the stored attributes is NULL.
 * The data bytes are heap's in both forms (NULLs take no data bytes); only
 * the header differs.  The trailing NULLs are never visited beyond finding
 * where they start.  SLIM_NULL_BITMAP_COMPRESS stores the attributes past
 * prefix_natts in a compressed tail (slim_tail.c) when that is shorter and
 * allowed (docs/format.md); else it is truncate.
 */
HeapTuple
slim_form_tuple(TupleDesc tupdesc, const Datum *values, const bool *isnull,
				SlimNullBitmap mode, int min_natts, int prefix_natts)
{
	int			natts = tupdesc->natts;
	int			stored_natts;
	bool		hasnull;
	bool		external;
	bool		toastable;
	Size		hoff;
	Size		data_len;
	HeapTuple	tuple;

	/* heap's form, or nothing trailing to leave out: heap's own former */
	if (mode == SLIM_NULL_BITMAP_FULL || natts == 0 ||
		(!isnull[natts - 1] && mode != SLIM_NULL_BITMAP_COMPRESS))
		return heap_form_tuple(tupdesc, (Datum *) values, (bool *) isnull);

	if (natts > MaxTupleAttributeNumber)
		ereport(ERROR,
				(errcode(ERRCODE_TOO_MANY_COLUMNS),
				 errmsg("number of columns (%d) exceeds limit (%d)",
						natts, MaxTupleAttributeNumber)));

	stored_natts = isnull[natts - 1] ?
		slim_stored_natts(tupdesc, isnull, min_natts) : natts;

	/* nothing to leave out: heap's own former gives the same bytes */
	if (stored_natts == natts && mode != SLIM_NULL_BITMAP_COMPRESS)
		return heap_form_tuple(tupdesc, (Datum *) values, (bool *) isnull);

	data_len = slim_data_size(tupdesc, values, isnull, 0, stored_natts, NULL,
							  0, &hasnull, &external, &toastable);
	hoff = offsetof(HeapTupleHeaderData, t_bits);
	if (hasnull)
		hoff += BITMAPLEN(stored_natts);
	hoff = MAXALIGN(hoff);

	/*
	 * A tail row must never meet the toaster (invariant C2): no external
	 * value, and short enough in heap's own form (a bitmap for every
	 * attribute) that heap would not have compressed anything either.
	 */
	if (mode == SLIM_NULL_BITMAP_COMPRESS && hasnull && !external &&
		Max(prefix_natts, min_natts) < stored_natts &&
		MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) + BITMAPLEN(natts)) +
		data_len <= TOAST_TUPLE_THRESHOLD)
	{
		tuple = slim_form_tail_tuple(tupdesc, values, isnull, stored_natts,
									 Max(prefix_natts, min_natts),
									 hoff + data_len);
		if (tuple != NULL)
			return tuple;
	}
	if (stored_natts == natts)
		return heap_form_tuple(tupdesc, (Datum *) values, (bool *) isnull);

	/*
	 * heap_insert(), heap_update() and the rewrite of CLUSTER run the toaster
	 * on rows longer than TOAST_TUPLE_THRESHOLD.  A row over the threshold
	 * in heap's form (which has a bitmap for every attribute) but under it
	 * in ours would escape the toaster and be stored longer than heap stores
	 * it, so such a row gets heap's form.
	 */
	if (toastable && hoff + data_len <= TOAST_TUPLE_THRESHOLD &&
		MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) + BITMAPLEN(natts)) +
		data_len > TOAST_TUPLE_THRESHOLD)
		return heap_form_tuple(tupdesc, (Datum *) values, (bool *) isnull);

	tuple = slim_alloc_tuple(tupdesc, stored_natts, hoff, hoff + data_len,
							 hasnull, isnull);
	slim_fill_data(tupdesc, values, isnull, 0, stored_natts, NULL,
				   (char *) tuple->t_data + hoff, 0, &tuple->t_data->t_infomask);
	return tuple;
}

/*
 * The number of the last attribute a stored tuple holds a value for: its
 * natts when it has no bitmap, else the last bit set (0 when all are NULL).
 */
static int
slim_last_value(HeapTupleHeader td)
{
	int			natts = HeapTupleHeaderGetNatts(td);
	int			byte;

	if (!(td->t_infomask & HEAP_HASNULL))
		return natts;

	byte = BITMAPLEN(natts) - 1;
	/* bits past natts in the last byte are never set; mask them anyway */
	if (byte >= 0 && natts % 8 != 0)
	{
		bits8		last = td->t_bits[byte] & ((1 << (natts % 8)) - 1);

		if (last != 0)
			return byte * 8 + pg_leftmost_one_pos32(last) + 1;
		byte--;
	}
	for (; byte >= 0; byte--)
	{
		if (td->t_bits[byte] != 0)
			return byte * 8 + pg_leftmost_one_pos32(td->t_bits[byte]) + 1;
	}
	return 0;
}

/*
 * Is any of the first natts attributes of a stored tuple NULL?
 */
static bool
slim_has_null(HeapTupleHeader td, int natts)
{
	int			i;

	if (!(td->t_infomask & HEAP_HASNULL))
		return false;
	for (i = 0; i < natts / 8; i++)
	{
		if (td->t_bits[i] != 0xFF)
			return true;
	}
	if (natts % 8 != 0)
	{
		bits8		mask = (1 << (natts % 8)) - 1;

		if ((td->t_bits[natts / 8] & mask) != mask)
			return true;
	}
	return false;
}

/*
 * The header a tuple with src's data and natts attributes has: its t_hoff,
 * and whether it has a bitmap.  Attributes past src's own natts are NULL.
 */
static Size
slim_reshaped_hoff(HeapTupleHeader src, int natts, bool *hasnull)
{
	int			src_natts = HeapTupleHeaderGetNatts(src);

	*hasnull = natts > src_natts || slim_has_null(src, natts);
	return MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
					(*hasnull ? BITMAPLEN(natts) : 0));
}

/*
 * Write src's row with natts attributes into dst: t_infomask2, t_infomask,
 * t_hoff, the bitmap and the data, nothing before t_infomask2 (so dst may be
 * a minimal tuple seen through MINIMAL_TUPLE_OFFSET).  The data bytes do not
 * depend on the bitmap: NULLs take none, and t_hoff keeps alignment.
 */
static void
slim_reshape_into(HeapTupleHeader src, Size data_len, int natts,
				  bool hasnull, Size hoff, HeapTupleHeader dst)
{
	int			kept = Min(HeapTupleHeaderGetNatts(src), natts);
	Size		bitmap_len PG_USED_FOR_ASSERTS_ONLY = hasnull ? BITMAPLEN(natts) : 0;

	dst->t_infomask2 = src->t_infomask2;
	HeapTupleHeaderSetNatts(dst, natts);
	dst->t_infomask = src->t_infomask & ~HEAP_HASNULL;
	dst->t_hoff = hoff;

	/* the bitmap, then zeroes up to the data */
	memset(dst->t_bits, 0, hoff - offsetof(HeapTupleHeaderData, t_bits));
	if (hasnull)
	{
		dst->t_infomask |= HEAP_HASNULL;
		if (src->t_infomask & HEAP_HASNULL)
			memcpy(dst->t_bits, src->t_bits, kept / 8);
		else
			memset(dst->t_bits, 0xFF, kept / 8);
		if (kept % 8 != 0)
		{
			bits8		mask = (1 << (kept % 8)) - 1;

			dst->t_bits[kept / 8] = (src->t_infomask & HEAP_HASNULL) ?
				(src->t_bits[kept / 8] & mask) : mask;
		}
	}
	Assert(offsetof(HeapTupleHeaderData, t_bits) + bitmap_len <= hoff);
	memcpy((char *) dst + hoff, (char *) src + src->t_hoff, data_len);
}

/*
 * A palloc'd copy of source whose header stores natts attributes of
 * tupdesc.  A composite-datum header (a row formed, not yet stored) is made
 * anew: versioned datums record the row type's version of the stored
 * attributes, which changes with natts.
 */
static HeapTuple
slim_reshape_tuple(HeapTuple source, int natts, TupleDesc tupdesc)
{
	HeapTupleHeader src = source->t_data;
	Size		data_len = source->t_len - src->t_hoff;
	bool		hasnull;
	Size		hoff = slim_reshaped_hoff(src, natts, &hasnull);
	HeapTuple	tuple;
	HeapTupleHeader td;

	tuple = (HeapTuple) palloc(HEAPTUPLESIZE + hoff + data_len);
	td = (HeapTupleHeader) ((char *) tuple + HEAPTUPLESIZE);
	tuple->t_data = td;
	tuple->t_len = hoff + data_len;
	tuple->t_self = source->t_self;
	tuple->t_tableOid = source->t_tableOid;

	/* what comes before t_infomask2 is copied as heap_copytuple() does */
	memcpy(td, src, offsetof(HeapTupleHeaderData, t_infomask2));
	slim_reshape_into(src, data_len, natts, hasnull, hoff, td);
#ifdef SLIM_HAVE_HEAP_TUPLE_SET_DATUM
	if (HeapTupleHeaderIsDatum(src))
		slim_tuple_set_datum(td, tupdesc, tuple->t_len);
#endif
	return tuple;
}

/*
 * Give a stored tuple the header a new row of a table with desc_natts
 * attributes gets in this mode: trailing NULLs left out down to min_natts
 * (truncate), or every attribute (full).  The attributes past the source's
 * own natts must be NULL, not fast defaults.
 *
 * This is INSERT ... SELECT's path: the row needs no deforming, only a new
 * header.  Returns NULL when the source already has that form.
 */
HeapTuple
slim_refit_tuple(HeapTuple source, TupleDesc tupdesc, SlimNullBitmap mode,
				 int min_natts)
{
	HeapTupleHeader src = source->t_data;
	int			src_natts = HeapTupleHeaderGetNatts(src);
	int			desc_natts = tupdesc->natts;
	int			natts;

	if (mode == SLIM_NULL_BITMAP_FULL || src_natts > desc_natts)
		natts = Max(desc_natts, src_natts);
	else
		natts = Max(slim_last_value(src), Min(min_natts, desc_natts));

	if (natts < desc_natts)
	{
		bool		hasnull;
		Size		data_len = source->t_len - src->t_hoff;
		Size		hoff = slim_reshaped_hoff(src, natts, &hasnull);

		/* the TOAST band: see slim_form_tuple() */
		if (hoff + data_len <= TOAST_TUPLE_THRESHOLD &&
			MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) +
					 BITMAPLEN(desc_natts)) + data_len > TOAST_TUPLE_THRESHOLD)
			natts = desc_natts;
	}

	if (natts == src_natts)
		return NULL;
	return slim_reshape_tuple(source, natts, tupdesc);
}

/*
 * A palloc'd copy of a stored tuple with every attribute of its descriptor
 * (invariant E1): the form copies leaving a slimheap slot take.
 */
HeapTuple
slim_expand_tuple(HeapTuple source, TupleDesc tupdesc)
{
	if (HeapTupleHeaderGetNatts(source->t_data) >= tupdesc->natts)
		return heap_copytuple(source);
	return slim_reshape_tuple(source, tupdesc->natts, tupdesc);
}

/*
 * The same as a minimal tuple, for sorts, hashes, tuple stores and parallel
 * workers' queues.
 */
MinimalTuple
slim_expand_minimal_tuple(HeapTuple source, TupleDesc tupdesc, Size extra)
{
	int			desc_natts = tupdesc->natts;
	HeapTupleHeader src = source->t_data;
	Size		data_len = source->t_len - src->t_hoff;
	bool		hasnull;
	Size		hoff;
	Size		len;
	char	   *mem;
	MinimalTuple result;

	if (HeapTupleHeaderGetNatts(src) >= desc_natts)
		return slim_minimal_tuple_from_heap_tuple(source, extra);

	/* extra: zeroed room the caller keeps in front of the tuple (18+) */
	hoff = slim_reshaped_hoff(src, desc_natts, &hasnull);
	len = hoff + data_len - MINIMAL_TUPLE_OFFSET;
	mem = palloc(extra + len);
	memset(mem, 0, extra + offsetof(MinimalTupleData, t_infomask2));
	result = (MinimalTuple) (mem + extra);
	result->t_len = len;
	slim_reshape_into(src, data_len, desc_natts, hasnull, hoff,
					  (HeapTupleHeader) ((char *) result - MINIMAL_TUPLE_OFFSET));
	return result;
}
