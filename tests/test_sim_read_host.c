/* Long READ_HOSTs on the Verilated device: a READ_HOST of more than StageRows rows (256) commits
 * its staging ring chunk by chunk. On a fast link (latency below ~50 ns at N = 8) the row stream
 * can run more than a chunk ahead of the chunk being committed; the command must still commit
 * every chunk (regression: more than 3 x StageRows rows ended with CMD_TIMEOUT, the command
 * processor waiting in SRowWait for a chunk boundary the stream had already passed). Each case
 * reads random bytes into the UB, writes them back with WRITE_HOST and compares with the input
 * (the reference is the host data itself). Skips when the model of that N is not built. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "sim_fixture.h"
#include "tpu/tpu.h"

struct rh_case {
	uint32_t n, rows, cols, stride, latency;  /* stride 0: packed */
};

static const struct rh_case rh_cases[] = {
	{ 8, 1024, 8, 0, 0 },   /* the reported failure */
	{ 8, 800, 8, 0, 0 },    /* just past 3 chunks */
	{ 8, 768, 8, 0, 0 },    /* 3 chunks: the rest fits the ring (passed before) */
	{ 8, 769, 8, 0, 10 },
	{ 8, 1300, 8, 0, 40 },
	{ 8, 2048, 8, 0, 0 },   /* 8 chunks */
	{ 8, 1024, 5, 0, 0 },   /* short rows (these and N = 16 passed before the fix too) */
	{ 8, 900, 3, 7, 20 },   /* strided */
	{ 8, 1100, 8, 0, 50 },  /* the default link */
	{ 16, 1024, 16, 0, 0 },
	{ 16, 1200, 9, 0, 0 },
};

START_TEST(long_read_host_round_trip)
{
	const struct rh_case *k = &rh_cases[_i];
	uint64_t rng = harness_seed() ^ (uint64_t)(_i + 1) * 0x9E3779B97F4A7C15ull;
	uint32_t stride = k->stride ? k->stride : k->cols;
	size_t in_bytes = (size_t)(k->rows - 1) * stride + k->cols;
	size_t out_bytes = (size_t)k->rows * k->cols;
	uint32_t ub_row = (uint32_t)harness_range(&rng, 0, 64);
	char uri[96];
	tpu_dev *dev = NULL;
	tpu_buf *in, *out;
	struct tpu_cmd c[2];
	struct tpu_cpl cpl[2];
	uint8_t *pin, *pout;

	if (!sim_have(k->n))
		return;
	snprintf(uri, sizeof(uri), "sim:n=%u,latency=%u,mem=1M", k->n, k->latency);
	ck_assert_msg(tpu_open(uri, &dev) == 0, "%s: %s", uri, tpu_last_open_error());
	ck_assert_int_eq(tpu_buf_alloc(dev, in_bytes, &in), 0);
	ck_assert_int_eq(tpu_buf_alloc(dev, out_bytes, &out), 0);
	pin = tpu_buf_ptr(in);
	pout = tpu_buf_ptr(out);
	for (size_t i = 0; i < in_bytes; i++)
		pin[i] = (uint8_t)harness_rand(&rng);
	memset(pout, 0xEE, out_bytes);
	ck_assert_int_eq(tpu_cmd_read_host(&c[0], in, 0, k->stride, ub_row, k->rows, k->cols), 0);
	ck_assert_int_eq(tpu_cmd_write_host(&c[1], out, 0, 0, ub_row, k->rows, k->cols, 0), 0);
	ck_assert_msg(tpu_run(dev, c, 2, cpl, 20000) == 0,
		      "%s: %u rows x %u (stride %u): status 0x%x / 0x%x", uri, k->rows, k->cols,
		      stride, cpl[0].status, cpl[1].status);
	ck_assert_uint_eq(cpl[0].result, k->rows * k->cols);
	ck_assert_uint_eq(cpl[1].result, k->rows * k->cols);
	for (uint32_t r = 0; r < k->rows; r++)
		for (uint32_t j = 0; j < k->cols; j++)
			ck_assert_msg(pout[(size_t)r * k->cols + j] == pin[(size_t)r * stride + j],
				      "%s: row %u byte %u", uri, r, j);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

TPU_TEST_SUITE(suite_sim_read_host)
static Suite *suite_sim_read_host(void)
{
	Suite *s = suite_create("sim_read_host");
	TCase *tc = tcase_create("long");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, long_read_host_round_trip, 0,
			    (int)(sizeof(rh_cases) / sizeof(rh_cases[0])));
	suite_add_tcase(s, tc);
	return s;
}
