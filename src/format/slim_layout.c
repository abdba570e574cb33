/*-------------------------------------------------------------------------
 *
 * slim_layout.c
 *	  Which attributes a row stores, and heap's layout of their values.
 *
 * The one leaf under both formers: the truncate former (slim_truncate.c) and
 * the tail former (slim_tail.c) lay values out with these functions, so
 * that every stored value sits exactly where heap's readers look for it.
 *
 * The invariants named below (T1, E1, C1-C4) are defined in
 * docs/invariants.md.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/format/slim_layout.c
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
#include "slim_layout.h"

/*
 * The number of leading attributes that rows of a relation with this
 * descriptor must always store (invariant T1): up to the last column that
 * has a non-NULL missing value.  Were such a column's NULL left out of a
 * row, readers would return the fast default in its place.  This is the one
 * place the rule is written (slim_missing_floor() in slim_format.h asks it
 * for every attribute); here for a row whose attributes after the first
 * natts do not count: the last of the first natts columns that has a
 * non-NULL missing value, or 0.
 */
int
slim_missing_floor_upto(TupleDesc tupdesc, int natts)
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
 * and never fewer than missing_floor (see slim_missing_floor).
 */
int
slim_stored_natts(TupleDesc tupdesc, const bool *isnull, int missing_floor)
{
	int			natts = tupdesc->natts;

	/*
	 * Wide sparse rows end in hundreds of NULLs: skip them eight flags at a
	 * time while all eight are plain "true".  Anything else is decided one
	 * flag at a time below.
	 */
	while (natts - 8 >= missing_floor)
	{
		uint64		flags;

		memcpy(&flags, &isnull[natts - 8], sizeof(flags));
		if (flags != UINT64CONST(0x0101010101010101))
			break;
		natts -= 8;
	}
	while (natts > missing_floor && isnull[natts - 1])
		natts--;
	return natts;
}


/*
 * len advanced past a value of att stored at it, laid out the way
 * heap_fill_tuple() lays values out; *external is set when the value is a
 * TOAST pointer, *toastable when it is a varlena the toaster could compress
 * or move out of line.
 */
static pg_attribute_always_inline Size
slim_add_value_size(Form_pg_attribute att, Datum value, Size len,
					bool *external, bool *toastable)
{
	Pointer		val = DatumGetPointer(value);

	if (att->attlen != -1)
	{
		len = att_align_datum(len, att->attalign, att->attlen, value);
		return att_addlength_datum(len, att->attlen, value);
	}
	if (VARATT_IS_EXTERNAL(val) && !VARATT_IS_EXTERNAL_EXPANDED(val))
		*external = true;
	if (att->attstorage != TYPSTORAGE_PLAIN)
	{
		*toastable = true;
		/* stored with a 1-byte header, unaligned */
		if (VARATT_CAN_MAKE_SHORT(val))
			return len + VARATT_CONVERTED_SHORT_SIZE(val);
	}
	if (VARATT_IS_EXTERNAL_EXPANDED(val))
	{
		/* flattened into the row */
		len = att_align_nominal(len, att->attalign);
		return len + EOH_get_flat_size(DatumGetEOHP(value));
	}
	len = att_align_datum(len, att->attalign, att->attlen, value);
	return att_addlength_datum(len, att->attlen, value);
}

/*
 * Where the data of attributes [from, to) (or of attnums[from .. to - 1])
 * ends when it starts at offset off of a row's MAXALIGNed data area, laid
 * out the way heap_fill_tuple() lays values out.  *hasnull is set when one
 * of them is NULL, *external when one is a TOAST pointer, *toastable when
 * one is a varlena the toaster could compress or move out of line.  Only
 * the values are visited: NULLs take no room.
 */
Size
slim_data_size(TupleDesc tupdesc, const Datum *values, const bool *isnull,
			   int from, int to, const int16 *attnums, Size off,
			   bool *hasnull, bool *external, bool *toastable)
{
	Size		len = off;
	int			nvalues = 0;
	bool		ext = false;
	bool		toast = false;
	int			k;

	if (attnums == NULL)
	{
		for (k = slim_next_value(isnull, from, to); k < to;
			 k = slim_next_value(isnull, k + 1, to))
		{
			len = slim_add_value_size(TupleDescAttr(tupdesc, k), values[k],
									  len, &ext, &toast);
			nvalues++;
		}
	}
	else
	{
		for (k = from; k < to; k++)
		{
			int			i = attnums[k];

			if (isnull[i])
				continue;
			len = slim_add_value_size(TupleDescAttr(tupdesc, i), values[i],
									  len, &ext, &toast);
			nvalues++;
		}
	}
	*hasnull = nvalues < to - from;
	*external = ext;
	*toastable = toast;
	return len;
}

/*
 * Write a value of att at data, byte for byte as heap does (alignment is
 * relative to start, the MAXALIGNed start of the data), and the flags
 * that describe it into *infomask.  Returns where it ends.
 */
static pg_attribute_always_inline char *
slim_put_value(Form_pg_attribute att, Datum value, char *start, char *data,
			   uint16 *infomask)
{
	Pointer		val = DatumGetPointer(value);
	Size		len;

	if (att->attbyval)
	{
		data = start + att_align_nominal(data - start, att->attalign);
		store_att_byval(data, value, att->attlen);
		return data + att->attlen;
	}
	if (att->attlen == -1)
	{
		*infomask |= HEAP_HASVARWIDTH;
		if (VARATT_IS_EXTERNAL_EXPANDED(val))
		{
			ExpandedObjectHeader *eoh = DatumGetEOHP(value);

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
		return data + len;
	}
	if (att->attlen == -2)
	{
		/* cstring */
		*infomask |= HEAP_HASVARWIDTH;
		data = start + att_align_nominal(data - start, att->attalign);
		len = strlen(val) + 1;
		memcpy(data, val, len);
		return data + len;
	}
	data = start + att_align_nominal(data - start, att->attalign);
	memcpy(data, val, att->attlen);
	return data + att->attlen;
}

/*
 * Write the values of attributes [from, to) (or of attnums[from .. to - 1])
 * at offset off of start (zeroed, MAXALIGNed memory of the size
 * slim_data_size() gave), byte for byte as heap does, and the flags that
 * describe them into *infomask.  Returns where they end.
 */
Size
slim_fill_data(TupleDesc tupdesc, const Datum *values, const bool *isnull,
			   int from, int to, const int16 *attnums, char *start, Size off,
			   uint16 *infomask)
{
	char	   *data = start + off;
	uint16		flags = 0;
	int			k;

	if (attnums == NULL)
	{
		for (k = slim_next_value(isnull, from, to); k < to;
			 k = slim_next_value(isnull, k + 1, to))
			data = slim_put_value(TupleDescAttr(tupdesc, k), values[k],
								  start, data, &flags);
	}
	else
	{
		for (k = from; k < to; k++)
		{
			int			i = attnums[k];

			if (!isnull[i])
				data = slim_put_value(TupleDescAttr(tupdesc, i), values[i],
									  start, data, &flags);
		}
	}
	*infomask |= flags;
	return data - start;
}

/*
 * The size of a row that stores its first stored_natts attributes in heap's
 * layout: data length, header length (with a bitmap when one is NULL), and
 * whether a value is external or toastable.
 */
void
slim_measure_row(TupleDesc tupdesc, const Datum *values, const bool *isnull,
				 int stored_natts, SlimRowSize *size)
{
	Size		hoff = offsetof(HeapTupleHeaderData, t_bits);

	size->data_len = slim_data_size(tupdesc, values, isnull, 0, stored_natts,
									NULL, 0, &size->hasnull, &size->external,
									&size->toastable);
	if (size->hasnull)
		hoff += BITMAPLEN(stored_natts);
	size->hoff = MAXALIGN(hoff);
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
		for (i = slim_next_value(isnull, 0, natts); i < natts;
			 i = slim_next_value(isnull, i + 1, natts))
			td->t_bits[i >> 3] |= 1 << (i & 7);
	}
	return tuple;
}

/*
 * Whether any of the first natts attributes of a stored row is NULL: its
 * bitmap, as far as it goes.
 */
bool
slim_header_has_null(HeapTupleHeader td, int natts)
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
		uint8		mask = (1 << (natts % 8)) - 1;

		return (td->t_bits[natts / 8] & mask) != mask;
	}
	return false;
}
