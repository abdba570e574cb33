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
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/tupdesc_details.h"
#include "catalog/pg_type.h"
#include "port/pg_bitutils.h"

#include "slim_compat.h"
#include "slimheap.h"

/*
 * The number of leading attributes that rows of a relation with this
 * descriptor must always store: up to the last column that has a non-NULL
 * missing value.  Were such a column's NULL left out of a row, readers would
 * return the fast default in its place.
 */
int
slim_missing_natts(TupleDesc tupdesc)
{
	AttrMissing *missing;
	int			i;

	if (tupdesc->constr == NULL || tupdesc->constr->missing == NULL)
		return 0;

	missing = tupdesc->constr->missing;
	for (i = tupdesc->natts - 1; i >= 0; i--)
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
 * Does the row hold a value the toaster could compress or move out of line?
 * Only varlena attributes whose storage is not "plain" qualify; those past
 * stored_natts are NULL.
 */
static bool
slim_has_toastable_value(TupleDesc tupdesc, const bool *isnull,
						 int stored_natts)
{
	int			i;

	for (i = 0; i < stored_natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);

		if (!isnull[i] && att->attlen == -1 &&
			att->attstorage != TYPSTORAGE_PLAIN)
			return true;
	}
	return false;
}

/*
 * Form a heap tuple from values and isnull arrays that match tupdesc.
 *
 * SLIM_NULL_BITMAP_FULL returns exactly what heap_form_tuple() returns.
 * SLIM_NULL_BITMAP_TRUNCATE leaves out trailing NULL attributes beyond
 * min_natts and omits the bitmap when none of the stored attributes is NULL.
 *
 * The data area is the same in both forms, because NULL attributes occupy no
 * data bytes; only the header (natts, t_hoff, bitmap, HEAP_HASNULL) differs.
 * That lets heap's own routines compute and fill the data with the full
 * descriptor; we only decide on the header.
 */
HeapTuple
slim_form_tuple(TupleDesc tupdesc, const Datum *values, const bool *isnull,
				SlimNullBitmap mode, int min_natts)
{
	int			natts = tupdesc->natts;
	int			stored_natts;
	bool		hasnull = false;
	Size		hoff;
	Size		data_len;
	HeapTuple	tuple;
	HeapTupleHeader td;
	bits8		scratch_bits[SLIM_MAX_BITMAPLEN];
	int			i;

	if (mode == SLIM_NULL_BITMAP_FULL)
		return heap_form_tuple(tupdesc, (Datum *) values, (bool *) isnull);

	if (natts > MaxTupleAttributeNumber)
		ereport(ERROR,
				(errcode(ERRCODE_TOO_MANY_COLUMNS),
				 errmsg("number of columns (%d) exceeds limit (%d)",
						natts, MaxTupleAttributeNumber)));

	stored_natts = slim_stored_natts(tupdesc, isnull, min_natts);

	/* nothing to leave out: heap's own former gives the same bytes */
	if (stored_natts == natts)
		return heap_form_tuple(tupdesc, (Datum *) values, (bool *) isnull);

	for (i = 0; i < stored_natts; i++)
	{
		if (isnull[i])
		{
			hasnull = true;
			break;
		}
	}

	hoff = offsetof(HeapTupleHeaderData, t_bits);
	if (hasnull)
		hoff += BITMAPLEN(stored_natts);
	hoff = MAXALIGN(hoff);

	/* trailing NULLs add nothing here, so the full descriptor is fine */
	data_len = heap_compute_data_size(tupdesc, (Datum *) values,
									  (bool *) isnull);

	/*
	 * heap_insert(), heap_update() and the rewrite of CLUSTER run the toaster
	 * on rows longer than TOAST_TUPLE_THRESHOLD, and it compresses or moves
	 * out their values.  A row over the threshold in heap's form but under it
	 * in ours would escape the toaster and be stored longer than heap stores
	 * it, so give such a row heap's form and let it be toasted as heap's
	 * would.  (The toaster re-forms any row it changes with the full bitmap,
	 * so a row over the threshold in both forms ends up like heap's anyway.)
	 * Only a row with attributes left out has a shorter header than heap's,
	 * and only a narrow band of lengths needs the look at its values.
	 */
	if (hoff + data_len <= TOAST_TUPLE_THRESHOLD &&
		MAXALIGN(offsetof(HeapTupleHeaderData, t_bits) + BITMAPLEN(natts)) +
		data_len > TOAST_TUPLE_THRESHOLD &&
		slim_has_toastable_value(tupdesc, isnull, stored_natts))
		return heap_form_tuple(tupdesc, (Datum *) values, (bool *) isnull);

	tuple = (HeapTuple) palloc0(HEAPTUPLESIZE + hoff + data_len);
	td = (HeapTupleHeader) ((char *) tuple + HEAPTUPLESIZE);
	tuple->t_data = td;
	tuple->t_len = hoff + data_len;
	ItemPointerSetInvalid(&tuple->t_self);
	tuple->t_tableOid = InvalidOid;

	/*
	 * slim_tuple_set_datum() fills in the composite-datum fields (length,
	 * type, typmod and, on 15.20 and later 15.x, the version of a versioned
	 * row type) and may read natts from the header, so natts goes first.
	 */
	HeapTupleHeaderSetNatts(td, stored_natts);
	td->t_hoff = hoff;
	slim_tuple_set_datum(td, tupdesc, hoff + data_len);

	/*
	 * heap_fill_tuple() walks every attribute of the descriptor and, when
	 * given a bitmap, writes one bit for each; with no bitmap it would store
	 * the (NULL) trailing values.  Let it write a full-length bitmap into
	 * scratch space and keep what the stored attributes need.
	 */
	heap_fill_tuple(tupdesc, (Datum *) values, (bool *) isnull,
					(char *) td + hoff, data_len, &td->t_infomask,
					scratch_bits);
	if (hasnull)
		memcpy(td->t_bits, scratch_bits, BITMAPLEN(stored_natts));
	else
		td->t_infomask &= ~HEAP_HASNULL;

	return tuple;
}

/*
 * The number of the last attribute whose bit is set in a NULL bitmap
 * covering natts attributes (0 when all are NULL).
 */
static int
slim_bitmap_last_set(const bits8 *bits, int natts)
{
	int			byte = BITMAPLEN(natts) - 1;

	/* bits past natts in the last byte are never set; mask them anyway */
	if (byte >= 0 && natts % 8 != 0)
	{
		bits8		last = bits[byte] & ((1 << (natts % 8)) - 1);

		if (last != 0)
			return byte * 8 + pg_leftmost_one_pos32(last) + 1;
		byte--;
	}
	for (; byte >= 0; byte--)
	{
		if (bits[byte] != 0)
			return byte * 8 + pg_leftmost_one_pos32(bits[byte]) + 1;
	}
	return 0;
}

/*
 * Is any of the first natts attributes NULL in this bitmap?
 */
static bool
slim_bitmap_has_null(const bits8 *bits, int natts)
{
	int			i;

	for (i = 0; i < natts / 8; i++)
	{
		if (bits[i] != 0xFF)
			return true;
	}
	if (natts % 8 != 0)
	{
		bits8		mask = (1 << (natts % 8)) - 1;

		if ((bits[natts / 8] & mask) != mask)
			return true;
	}
	return false;
}

/*
 * Turn a heap tuple that stores every attribute of its descriptor (natts
 * equal to the descriptor's) into the form slim_form_tuple() would give the
 * same values, without deforming it.
 *
 * This is the path of INSERT ... SELECT from a table with the same layout,
 * where the executor hands over the source's tuple as it is: heap only
 * copies it, and deforming and forming 800 attributes instead would cost
 * several times that.  The data area does not depend on the bitmap (NULLs
 * take no data bytes, and t_hoff is MAXALIGNed, so alignment within the
 * data is unchanged), so only the header is rewritten: natts, the bitmap,
 * HEAP_HASNULL and t_hoff.  The rest of the header is copied as
 * heap_copytuple() copies it; heap_insert() sets what it needs.
 *
 * Returns NULL when the source is to be stored as it is (the full mode, no
 * NULLs, nothing to leave out, or the TOAST band), so that the caller can
 * store it without a copy, as heap does.
 */
HeapTuple
slim_trim_tuple(HeapTuple source, SlimNullBitmap mode, int min_natts)
{
	HeapTupleHeader src = source->t_data;
	int			natts = HeapTupleHeaderGetNatts(src);
	int			stored_natts;
	bool		hasnull;
	Size		hoff;
	Size		data_len;
	HeapTuple	tuple;
	HeapTupleHeader td;

	if (mode == SLIM_NULL_BITMAP_FULL || !HeapTupleHasNulls(source))
		return NULL;

	stored_natts = Max(slim_bitmap_last_set(src->t_bits, natts),
					   Min(min_natts, natts));
	if (stored_natts == natts)
		return NULL;
	hasnull = slim_bitmap_has_null(src->t_bits, stored_natts);

	hoff = offsetof(HeapTupleHeaderData, t_bits);
	if (hasnull)
		hoff += BITMAPLEN(stored_natts);
	hoff = MAXALIGN(hoff);
	data_len = source->t_len - src->t_hoff;

	/*
	 * The row would escape the toaster where heap's would not: the same rule
	 * as in slim_form_tuple(), with the tuple's own length as heap's.
	 */
	if (hoff + data_len <= TOAST_TUPLE_THRESHOLD &&
		source->t_len > TOAST_TUPLE_THRESHOLD)
		return NULL;

	tuple = (HeapTuple) palloc(HEAPTUPLESIZE + hoff + data_len);
	td = (HeapTupleHeader) ((char *) tuple + HEAPTUPLESIZE);
	tuple->t_data = td;
	tuple->t_len = hoff + data_len;
	tuple->t_self = source->t_self;
	tuple->t_tableOid = source->t_tableOid;

	memcpy(td, src, offsetof(HeapTupleHeaderData, t_bits));
	HeapTupleHeaderSetNatts(td, stored_natts);
	td->t_hoff = hoff;
	if (hasnull)
		memcpy(td->t_bits, src->t_bits, BITMAPLEN(stored_natts));
	else
		td->t_infomask &= ~HEAP_HASNULL;
	/* zero the alignment padding between the bitmap and the data */
	memset((char *) td->t_bits + (hasnull ? BITMAPLEN(stored_natts) : 0), 0,
		   hoff - offsetof(HeapTupleHeaderData, t_bits) -
		   (hasnull ? BITMAPLEN(stored_natts) : 0));
	memcpy((char *) td + hoff, (char *) src + src->t_hoff, data_len);

	return tuple;
}
