/* The bf16 x bf16 -> fp32 arithmetic of the golden model; see include/tpu/bf16.h and
 * docs/spec.md "7.1 bf16 numerics". Integer-only, written so that each step maps onto a piece of
 * RTL: unpack, align with a sticky bit, add or subtract, normalize, round, pack. */
#include <string.h>

#include "tpu/bf16.h"

#define F32_SIGN 0x80000000u
#define F32_EXP 0x7F800000u
#define F32_FRAC 0x007FFFFFu
#define F32_HIDDEN 0x00800000u
#define F32_EXP_MAX 255 /* biased exponent of inf / NaN */

/* Significands in the adder carry 3 bits below the fp32 LSB: guard (the first bit beyond the
 * LSB), round (the next) and sticky (the OR of everything further down). With the leading 1 at
 * bit 26 a value is sig * 2^(e - 127 - 26). */
#define GRS_BITS 3
#define SIG_LEAD (23 + GRS_BITS)

uint32_t tpu_f32_canon(uint32_t x)
{
	if ((x & F32_EXP) == 0)
		return x & F32_SIGN;
	if (tpu_f32_is_nan(x))
		return TPU_F32_CANONICAL_NAN;
	return x;
}

uint32_t tpu_bf16_to_f32(uint16_t a)
{
	return tpu_f32_canon((uint32_t)a << 16);
}

uint16_t tpu_f32_to_bf16(uint32_t x)
{
	/* The usual (x + 0x7FFF + lsb) >> 16 on its own would turn a NaN with a small payload into
	 * inf (or wrap 0xFFFFxxxx to 0). Canonicalizing first leaves 0x7FC00000, whose low half is
	 * 0, so the rounding below passes it through as 0x7FC0; subnormals become signed zeros. */
	x = tpu_f32_canon(x);
	uint32_t keep = x >> 16;
	uint32_t guard = (x >> 15) & 1u;
	uint32_t sticky = (x & 0x7FFFu) != 0;
	/* Round up when above half an ulp, or exactly half with an odd LSB (ties to even). A carry
	 * out of the fraction increments the exponent, which is the right renormalization; from
	 * the largest finite it reaches 0x7F80, infinity. The sign bit is never reached: the
	 * largest magnitude in, 0x7F7FFFFF, rounds to 0x7F80. Zero and inf have no low bits. */
	keep += guard & (sticky | (keep & 1u));
	return (uint16_t)keep;
}

/* Shift right by d, ORing the bits shifted out into bit 0 (the sticky bit). sig < 2^28. */
static uint32_t shift_right_sticky(uint32_t sig, uint32_t d)
{
	if (d >= 28)
		return sig != 0;
	uint32_t lost = sig & ((1u << d) - 1u);
	return (sig >> d) | (lost != 0);
}

/* Round sig (leading 1 at bit SIG_LEAD, 3 GRS bits) to 24 bits, nearest even, and pack it with
 * the biased exponent e. Overflow gives infinity, an exponent below the normal range the signed
 * zero. The callers only pass e <= 0 for results that are exact (GRS = 0), so flushing before or
 * after rounding is the same thing here. */
static uint32_t round_pack(uint32_t sign, int32_t e, uint32_t sig)
{
	uint32_t lsb = (sig >> GRS_BITS) & 1u;
	uint32_t guard = (sig >> (GRS_BITS - 1)) & 1u;
	uint32_t rest = sig & ((1u << (GRS_BITS - 1)) - 1u); /* round | sticky */
	sig >>= GRS_BITS;
	sig += guard & (rest != 0 || lsb);
	if (sig >> 24) {
		/* 1.11..1 + ulp = 10.00..0: the bit shifted out is 0, nothing to round again. */
		sig >>= 1;
		e++;
	}
	if (e >= F32_EXP_MAX)
		return sign | TPU_F32_INF;
	if (e <= 0)
		return sign;
	return sign | (uint32_t)e << 23 | (sig & F32_FRAC);
}

uint32_t tpu_f32_add(uint32_t a, uint32_t b)
{
	a = tpu_f32_canon(a);
	b = tpu_f32_canon(b);
	if (tpu_f32_is_nan(a) || tpu_f32_is_nan(b))
		return TPU_F32_CANONICAL_NAN;
	uint32_t mag_a = a & ~F32_SIGN;
	uint32_t mag_b = b & ~F32_SIGN;
	if (mag_a == TPU_F32_INF || mag_b == TPU_F32_INF) {
		if (mag_a == mag_b && a != b)
			return TPU_F32_CANONICAL_NAN; /* inf + -inf */
		return mag_a == TPU_F32_INF ? a : b;
	}
	if (mag_b == 0)
		return mag_a == 0 ? (a & b) : a; /* +0 + -0 = +0, -0 + -0 = -0 */
	if (mag_a == 0)
		return b;

	/* Both normal. For non-negative fp32 patterns the integer order is the magnitude order, so
	 * after this swap |a| >= |b| and the result takes a's sign (unless it cancels to 0). */
	if (mag_a < mag_b) {
		uint32_t t = a;
		a = b;
		b = t;
		t = mag_a;
		mag_a = mag_b;
		mag_b = t;
	}
	uint32_t sign = a & F32_SIGN;
	int32_t e = (int32_t)(mag_a >> 23);
	uint32_t d = (mag_a >> 23) - (mag_b >> 23);
	uint32_t sig_a = ((mag_a & F32_FRAC) | F32_HIDDEN) << GRS_BITS;
	uint32_t sig_b = ((mag_b & F32_FRAC) | F32_HIDDEN) << GRS_BITS;
	/* Up to 25 places b's lost bits can decide the rounding (1 - 2^-25 - 2^-48 rounds down to
	 * 1 - 2^-24, 1 - 2^-25 is a tie that goes to 1). From 26 places on b is under a quarter of
	 * a's ulp and the rounded result is a itself; it still enters as a sticky bit, so that one
	 * alignment rule serves every d (1 - 2^-30 comes back to 1 through G = R = 1). */
	sig_b = shift_right_sticky(sig_b, d);

	uint32_t sig;
	if ((a ^ b) & F32_SIGN) {
		/* sig_a's 3 low bits are 0, so folding b's lost bits into its bit 0 leaves the
		 * difference's bits above the sticky position exact and its bit 0 the right sticky.
		 * d >= 2 cancels at most one leading bit, so G and R survive the shift below; d <=
		 * 1 loses nothing in the alignment, so a massive cancellation is exact. */
		sig = sig_a - sig_b;
		if (sig == 0)
			return 0; /* x + -x = +0 under round to nearest */
		while (!(sig & (1u << SIG_LEAD))) {
			sig <<= 1;
			e--;
		}
	} else {
		sig = sig_a + sig_b;
		if (sig >> (SIG_LEAD + 1)) {
			/* Carry out: one right shift, the lost bit joins the sticky. */
			sig = (sig >> 1) | (sig & 1u);
			e++;
		}
	}
	/* e <= 0 here only after a cancellation, whose result is exact: both addends are
	 * multiples of 2^-149, so a sum below 2^-126 needs no rounding and is flushed as is. */
	return round_pack(sign, e, sig);
}

/* The products of special operands (a and b after the input rules): a NaN, 0 x inf -> the
 * canonical NaN; inf x (non-zero) -> inf, zero x finite -> zero, of the sign of the product.
 * Returns true with *out set for those, false when both are normal numbers. */
static bool mul_special(uint32_t a, uint32_t b, uint32_t *out)
{
	uint32_t sign = (a ^ b) & F32_SIGN;
	uint32_t mag_a = a & ~F32_SIGN;
	uint32_t mag_b = b & ~F32_SIGN;
	if (tpu_f32_is_nan(a) || tpu_f32_is_nan(b))
		*out = TPU_F32_CANONICAL_NAN;
	else if (mag_a == TPU_F32_INF || mag_b == TPU_F32_INF)
		*out = (mag_a == 0 || mag_b == 0) ? TPU_F32_CANONICAL_NAN : (sign | TPU_F32_INF);
	else if (mag_a == 0 || mag_b == 0)
		*out = sign;
	else
		return false;
	return true;
}

uint32_t tpu_bf16_mul(uint16_t a, uint16_t b)
{
	uint32_t fa = tpu_bf16_to_f32(a);
	uint32_t fb = tpu_bf16_to_f32(b);
	uint32_t special;
	if (mul_special(fa, fb, &special))
		return special;
	uint32_t sign = (fa ^ fb) & F32_SIGN;
	uint32_t mag_a = fa & ~F32_SIGN;
	uint32_t mag_b = fb & ~F32_SIGN;

	/* 1.f x 1.f with 7-bit fractions: a 16-bit product in [2^14, 2^16), i.e. [1, 4) with 14
	 * fraction bits. fp32 keeps 23, so the product is exact: no rounding, only range checks. */
	uint32_t prod = (((mag_a >> 16) & 0x7Fu) | 0x80u) * (((mag_b >> 16) & 0x7Fu) | 0x80u);
	int32_t e = (int32_t)(mag_a >> 23) + (int32_t)(mag_b >> 23) - 127;
	if (prod & 0x8000u)
		e++; /* [2, 4): the leading 1 is already at bit 15 */
	else
		prod <<= 1;
	/* Exactness means no rounding can carry a product across 2^128 or 2^-126: the range is
	 * decided on the exact value. */
	if (e >= F32_EXP_MAX)
		return sign | TPU_F32_INF;
	if (e <= 0)
		return sign;
	return sign | (uint32_t)e << 23 | (prod & 0x7FFFu) << 8;
}

uint32_t tpu_f32_mul(uint32_t a, uint32_t b)
{
	uint32_t special;
	a = tpu_f32_canon(a);
	b = tpu_f32_canon(b);
	if (mul_special(a, b, &special))
		return special;
	uint32_t sign = (a ^ b) & F32_SIGN;
	uint32_t mag_a = a & ~F32_SIGN;
	uint32_t mag_b = b & ~F32_SIGN;

	/* 24 x 24 significand bits: a 48-bit exact product in [2^46, 2^48), i.e. [1, 4) with 46
	 * fraction bits. Normalized to the leading 1 at bit 47, the kept 24 bits are 47..24, the
	 * guard bit 23 and the sticky bits 22..0. */
	uint64_t prod = (uint64_t)((mag_a & F32_FRAC) | F32_HIDDEN) *
			(uint64_t)((mag_b & F32_FRAC) | F32_HIDDEN);
	int32_t e = (int32_t)(mag_a >> 23) + (int32_t)(mag_b >> 23) - 127;
	if (prod >> 47)
		e++;
	else
		prod <<= 1;
	/* The flush is decided on the exact value (spec 7.1): an exact product below 2^-126 is
	 * the zero of its sign even where rounding to 24 bits would have reached 2^-126. */
	if (e <= 0)
		return sign;
	uint32_t sig = (uint32_t)(prod >> 24);
	uint32_t guard = (uint32_t)(prod >> 23) & 1u;
	uint32_t sticky = (prod & 0x7FFFFFu) != 0;
	sig += guard & (sticky | (sig & 1u));
	if (sig >> 24) {
		/* 1.11..1 + ulp = 10.00..0: the bit shifted out is 0. */
		sig >>= 1;
		e++;
	}
	if (e >= F32_EXP_MAX)
		return sign | TPU_F32_INF;
	return sign | (uint32_t)e << 23 | (sig & F32_FRAC);
}

uint32_t tpu_bf16_mac(uint32_t acc, uint16_t a, uint16_t b)
{
	return tpu_f32_add(acc, tpu_bf16_mul(a, b));
}

uint32_t tpu_bf16_dot(const uint16_t *a, const uint16_t *b, unsigned n, uint32_t acc_in)
{
	uint32_t acc = acc_in;
	for (unsigned k = 0; k < n; k++)
		acc = tpu_bf16_mac(acc, a[k], b[k]);
	return acc;
}

uint32_t tpu_bf16_dot_tiled(const uint16_t *a, const uint16_t *b, unsigned k, unsigned tile,
			    uint32_t acc_in, bool accumulate)
{
	uint32_t acc = accumulate ? acc_in : 0;
	if (tile == 0)  /* (no tile size: one tile of all K rows) */
		tile = k ? k : 1;
	for (unsigned k0 = 0; k0 < k; k0 += tile) {
		unsigned rows = k - k0 < tile ? k - k0 : tile;
		uint32_t sum = tpu_bf16_dot(a + k0, b + k0, rows, 0);
		/* The padded PEs still add their +0 products: only a -0 sum changes (to +0). */
		for (unsigned pad = rows; pad < tile; pad++)
			sum = tpu_bf16_mac(sum, 0, 0);
		acc = (k0 == 0 && !accumulate) ? sum : tpu_f32_add(acc, sum);
	}
	return acc;
}

uint32_t tpu_f32_from_float(float f)
{
	uint32_t x;
	_Static_assert(sizeof(float) == sizeof(uint32_t), "float is binary32");
	memcpy(&x, &f, sizeof(x));
	return x;
}

float tpu_f32_to_float(uint32_t x)
{
	float f;
	memcpy(&f, &x, sizeof(f));
	return f;
}
