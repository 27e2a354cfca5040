// extern "C" wrappers around gemmlowp's fixed-point primitives (Debian libgemmlowp-dev), the
// independent reference that tests/test_numerics_gemmlowp.c compares the golden numerics with.
#include <cstdint>

#include <gemmlowp/fixedpoint/fixedpoint.h>

extern "C" {
int32_t gemmlowp_ref_srdhm(int32_t a, int32_t b);
int32_t gemmlowp_ref_rdbpot(int32_t x, int exponent);
int32_t gemmlowp_ref_requantize(int32_t x, int32_t multiplier, int shift);
}

int32_t gemmlowp_ref_srdhm(int32_t a, int32_t b)
{
	return gemmlowp::SaturatingRoundingDoublingHighMul(a, b);
}

int32_t gemmlowp_ref_rdbpot(int32_t x, int exponent)
{
	return gemmlowp::RoundingDivideByPOT(x, exponent);
}

// TFLite's MultiplyByQuantizedMultiplier (reference_ops, double rounding), with the left shift
// done in uint32 so that it wraps as the spec says instead of being undefined.
int32_t gemmlowp_ref_requantize(int32_t x, int32_t multiplier, int shift)
{
	int left = shift > 0 ? shift : 0;
	int right = shift > 0 ? 0 : -shift;
	int32_t x1 = static_cast<int32_t>(static_cast<uint32_t>(x) << left);
	return gemmlowp::RoundingDivideByPOT(gemmlowp::SaturatingRoundingDoublingHighMul(x1, multiplier),
					     right);
}
