/* Directed cases of the golden numerics that follow from the spec's worked examples. The random
 * comparison against gemmlowp lives in test_numerics_gemmlowp.c. */
#include "harness.h"
#include "tpu/numerics.h"

START_TEST(srdhm_ties_go_up)
{
	/* a*b = 2^30 exactly: 0.5 -> 1; -2^30: -0.5 -> 0 */
	ck_assert_int_eq(tpu_srdhm(1 << 15, 1 << 15), 1);
	ck_assert_int_eq(tpu_srdhm(-(1 << 15), 1 << 15), 0);
	ck_assert_int_eq(tpu_srdhm(INT32_MIN, INT32_MIN), INT32_MAX);
}
END_TEST

START_TEST(rdbpot_ties_away)
{
	ck_assert_int_eq(tpu_rdbpot(5, 1), 3);
	ck_assert_int_eq(tpu_rdbpot(-5, 1), -3);
	ck_assert_int_eq(tpu_rdbpot(3, 1), 2);
	ck_assert_int_eq(tpu_rdbpot(-3, 1), -2);
}
END_TEST

START_TEST(double_rounding_example)
{
	/* reference/numerics.md 1.5: x = -6, M = 2^30, shift = -1 gives -2 with double rounding */
	ck_assert_int_eq(tpu_requantize(-6, 1 << 30, -1), -2);
}
END_TEST

TPU_TEST_SUITE(suite_numerics_basic)
static Suite *suite_numerics_basic(void)
{
	Suite *s = suite_create("numerics_basic");
	TCase *tc = tcase_create("directed");
	tcase_add_test(tc, srdhm_ties_go_up);
	tcase_add_test(tc, rdbpot_ties_away);
	tcase_add_test(tc, double_rounding_example);
	suite_add_tcase(s, tc);
	return s;
}
