/*-------------------------------------------------------------------------
 *
 * slim_tail_prefix.c
 *	  A slot's decoder of tail rows, first part: a row's standard prefix
 *	  deformed as heap's code would, from the slot's packed attribute facts.
 *
 * The trusting reader, for rows this build formed, as slim_tail_decode.c
 * (the tail after the prefix) and slim_tail_read.c.  docs/format.md gives
 * the layout.
 *
 * Copyright (c) 2026, slimheap contributors
 *
 * IDENTIFICATION
 *	  src/format/slim_tail_prefix.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "port/pg_bitutils.h"

#include "slim_tail.h"

/*
 * Deform attributes [from, upto) of a tail row's standard prefix into
 * values/isnull as heap's deforming would (upto at most the header's natts;
 * off: where attribute from's data may start, the offset after from - 1
 * that this or heap's deforming left).  Returns the offset after upto - 1.
 *
 * What heap's slot_deform_heap_tuple() would do, at about half the cost
 * (135 instructions against 272 for the 8 attributes of a W4 prefix, on
 * 15): it reads each attribute's facts from the slot's packed array, not
 * from the descriptor's 100-odd-byte entries, and has no cached offsets
 * to keep.  A tail row's prefix is heap's layout of its first K attributes
 * with nothing external in it (C2), so heap's rules of alignment and
 * length are all it takes.
 */
uint32
slim_deform_tail_prefix(HeapTupleHeader td, TupleDesc tupdesc,
						SlimTailReader *rd, uint32 off, int from, int upto,
						Datum *values, bool *isnull)
{
	const char *tp = (const char *) td + td->t_hoff;
	bool		hasnull = (td->t_infomask & HEAP_HASNULL) != 0;
	uint32		a = from;

	Assert(from < upto && upto <= HeapTupleHeaderGetNatts(td));
	/* a byte of the bitmap at a time: its NULLs first, then its values */
	while (a < (uint32) upto)
	{
		uint32		end = Min((uint32) upto, (a | 7) + 1);
		uint32		bits = hasnull ? (uint8) td->t_bits[a / 8] : 0xFF;

		bits = (bits >> (a % 8)) & ((1U << (end - a)) - 1);
		if (end - a == 8)
		{
			/* a whole byte's worth: a few stores of constant length */
			memset(isnull + a, true, 8);
			memset(values + a, 0, 8 * sizeof(Datum));
		}
		else
		{
			uint32		b;

			/* conditional stores: no call of memset() for a few entries */
			for (b = a; b < end; b++)
			{
				if (!(bits & (1U << (b - a))))
				{
					values[b] = (Datum) 0;
					isnull[b] = true;
				}
			}
		}
		while (bits != 0)
		{
			uint32		v = a + pg_rightmost_one_pos32(bits);
			const SlimAttInfo *ai = slim_known_att(rd->attinfo, rd->known,
												   tupdesc, v);

			bits &= bits - 1;
			off = slim_tail_value_start(ai, tp, off);
			values[v] = ai->attlen > 0 ?
				slim_fetch_fixed(tp + off, ai->attlen, ai->attbyval,
								 ai->shift) :
				PointerGetDatum(tp + off);
			isnull[v] = false;
			off = att_addlength_pointer(off, ai->attlen, tp + off);
		}
		a = end;
	}
	return off;
}
