/* tpu_gemm's K limit (docs/ops.md "Overflow"): one more term than int32 holds for every operand
 * is refused with -ERANGE and a message naming the limit; at the limit the extreme operands give
 * the exact sum (checked against int64), for the zero points 0, -128 and 127. Golden backend. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tpu/numerics.h"
#include "tpu/tpu.h"

static tpu_dev *open_golden(void)
{
	tpu_dev *dev = NULL;

	ck_assert_msg(tpu_open("golden:n=16", &dev) == 0, "%s", tpu_last_open_error());
	return dev;
}

/* A 1 x k times k x 1 GEMM of constant operands with zero point z; returns tpu_gemm's code. */
static int one_dot(tpu_dev *dev, size_t k, int8_t a, int8_t b, int32_t z, int32_t *out)
{
	int8_t *av = malloc(k), *bv = malloc(k);
	struct tpu_gemm_params p;
	int rc;

	ck_assert(av && bv);
	memset(av, (uint8_t)a, k);
	memset(bv, (uint8_t)b, k);
	tpu_gemm_params_init(&p);
	p.in_zero_point = z;
	*out = 0x5A5A5A5A;
	rc = tpu_gemm(dev, 1, k, 1, av, bv, &p, out);
	free(av);
	free(bv);
	return rc;
}

static const struct {
	int32_t z;
	size_t limit;
	int8_t a, b; /* the operands that reach the bound */
} cases[] = {
	{ 0, TPU_K_NO_OVERFLOW, -128, -128 },
	{ -128, 65793, 127, -128 },
	{ 127, 65793, -128, -128 },
};

/* the case: K = 131072, -128 everywhere, would give -2147483648 for 2^31 */
START_TEST(k_above_limit_refused)
{
	tpu_dev *dev = open_golden();
	int32_t out;
	int rc = one_dot(dev, cases[_i].limit + 1, cases[_i].a, cases[_i].b, cases[_i].z, &out);

	ck_assert_msg(rc == -ERANGE, "k = %zu, z = %d: %d (out %d), not refused", cases[_i].limit + 1,
		      (int)cases[_i].z, rc, (int)out);
	ck_assert_msg(strstr(tpu_gemm_last_error(dev), "K limit"), "%s", tpu_gemm_last_error(dev));
	ck_assert_int_eq(out, 0x5A5A5A5A); /* nothing written */
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(k_at_limit_exact)
{
	tpu_dev *dev = open_golden();
	int64_t want = (int64_t)cases[_i].limit * ((int64_t)cases[_i].a - cases[_i].z) * cases[_i].b;
	int32_t out;

	ck_assert_int_eq(one_dot(dev, cases[_i].limit, cases[_i].a, cases[_i].b, cases[_i].z, &out),
			 0);
	ck_assert(want >= INT32_MIN && want <= INT32_MAX);
	ck_assert_int_eq(out, want);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

TPU_TEST_SUITE(gemm_limits_suite)
static Suite *gemm_limits_suite(void)
{
	Suite *s = suite_create("gemm_limits");
	TCase *tc = tcase_create("k");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, k_above_limit_refused, 0, 3);
	tcase_add_loop_test(tc, k_at_limit_exact, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}
