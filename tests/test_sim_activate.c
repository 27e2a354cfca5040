/* ACTIVATE against parameter reloads (docs/spec.md §6.5, §6.7, §7), on the golden model and on
 * the Verilated device: ACTIVATE the same ACC rows three times with parameters reloaded in
 * between (BIAS, then the LUT), every command of that part in the ring at once so the device
 * runs them back to back and prefetches SQEs while each LOAD_PARAMS runs. Every RESULT
 * (saturation count) and every output byte is compared with an independent computation in this
 * file: the int8 matrix product done here and tpu_activate() per value.
 * Guards two device hazards: parameters changing under rows still in the activation pipeline
 * (LOAD_PARAMS must follow the previous ACTIVATE's last row), and the LOAD_PARAMS vector being
 * overwritten in the DMA read buffer by an SQE prefetch while its PARAM writes still read it
 * (the 256 LUT writes take longer than a prefetch round trip). */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "sim_fixture.h"
#include "tpu/numerics.h"
#include "tpu/tpu.h"

#define AN 8u     /* array size */
#define AROWS 16u /* ACC rows activated */
/* byte offsets in the one host buffer */
#define OFF_X 0u
#define OFF_W 256u
#define OFF_BIAS_A 512u
#define OFF_BIAS_B 576u
#define OFF_MULT 640u
#define OFF_SHIFT 704u
#define OFF_LUT_A 768u
#define OFF_LUT_B 1024u
#define OFF_OUT 2048u /* 3 x AROWS rows of AN int8 */
#define BUF_BYTES 4096u

struct act_case {
	int8_t x[AROWS][AN], w[AN][AN];
	int32_t bias[2][AN], mult[AN], shift[AN];
	int8_t lut[2][256];
	int32_t zp, qmin, qmax;
};

static void make_case(struct act_case *c, uint64_t seed)
{
	uint64_t s = seed;
	int32_t lo, hi;

	for (unsigned r = 0; r < AROWS; r++)
		for (unsigned k = 0; k < AN; k++)
			c->x[r][k] = (int8_t)harness_range(&s, -128, 127);
	for (unsigned k = 0; k < AN; k++)
		for (unsigned j = 0; j < AN; j++)
			c->w[k][j] = (int8_t)harness_range(&s, -128, 127);
	for (unsigned j = 0; j < AN; j++) {
		/* two bias sets far apart, so a mix of the two shows in the counts */
		c->bias[0][j] = (int32_t)harness_range(&s, -3000, 3000);
		c->bias[1][j] = (int32_t)harness_range(&s, 20000, 90000);
		c->mult[j] = (int32_t)harness_range(&s, 1 << 29, 0x7FFFFFFF);
		c->shift[j] = (int32_t)harness_range(&s, -12, -6);
	}
	for (unsigned i = 0; i < 256; i++) {
		c->lut[0][i] = (int8_t)harness_range(&s, -128, 127);
		c->lut[1][i] = (int8_t)harness_range(&s, -128, 127);
	}
	c->zp = (int32_t)harness_range(&s, -20, 20);
	lo = (int32_t)harness_range(&s, -128, -30);
	hi = (int32_t)harness_range(&s, 30, 127);
	c->qmin = lo;
	c->qmax = hi;
}

/* Independent expectation: out rows of the three ACTIVATEs and their saturation counts. */
static void expect(const struct act_case *c, int8_t out[3][AROWS][AN], uint32_t sat[3])
{
	for (unsigned a = 0; a < 3; a++) {
		struct tpu_act_output o = { c->zp, c->qmin, c->qmax, NULL, TPU_ROUND_DOUBLE };

		sat[a] = 0;
		if (a > 0)
			o.lut = c->lut[a - 1];
		for (unsigned r = 0; r < AROWS; r++) {
			for (unsigned j = 0; j < AN; j++) {
				struct tpu_act_channel ch = { 0, c->mult[j], c->shift[j] };
				int32_t acc = 0;
				bool st;

				ch.bias = c->bias[a > 0][j];
				for (unsigned k = 0; k < AN; k++)
					acc += (int32_t)c->x[r][k] * c->w[k][j];
				out[a][r][j] = tpu_activate(acc, &ch, &o, &st);
				sat[a] += st;
			}
		}
	}
}

static void fill_buffer(const struct act_case *c, uint8_t *b)
{
	memset(b, 0xEE, BUF_BYTES);
	memcpy(b + OFF_X, c->x, sizeof(c->x));
	memcpy(b + OFF_W, c->w, sizeof(c->w));
	memcpy(b + OFF_BIAS_A, c->bias[0], sizeof(c->bias[0]));
	memcpy(b + OFF_BIAS_B, c->bias[1], sizeof(c->bias[1]));
	memcpy(b + OFF_MULT, c->mult, sizeof(c->mult));
	memcpy(b + OFF_SHIFT, c->shift, sizeof(c->shift));
	memcpy(b + OFF_LUT_A, c->lut[0], 256);
	memcpy(b + OFF_LUT_B, c->lut[1], 256);
}

/* Batch 1: data, weights, MATMUL. Batch 2 (one submission, the ring nearly full): the LUT
 * first, the other parameters, then ACTIVATE / reload / ACTIVATE, the results to the host and
 * NOPs, so SQEs are left to prefetch while each LOAD_PARAMS runs. Tags = index in cmd. */
#define NB1 3u
#define NCMD 18u /* NB1 + 15 (queue depth 16) */
static void build_cmds(const struct act_case *c, const tpu_buf *b, struct tpu_cmd *cmd)
{
	ck_assert_int_eq(tpu_cmd_read_host(&cmd[0], b, OFF_X, 0, 0, AROWS, AN), 0);
	ck_assert_int_eq(tpu_cmd_load_weights(&cmd[1], b, OFF_W, 0, AN, AN, 0), 0);
	ck_assert_int_eq(tpu_cmd_matmul(&cmd[2], 0, 0, AROWS, TPU_MATMUL_POP), 0);
	ck_assert_int_eq(tpu_cmd_load_params(&cmd[3], TPU_PARAM_LUT, b, OFF_LUT_A, 0, 256), 0);
	ck_assert_int_eq(tpu_cmd_load_params(&cmd[4], TPU_PARAM_BIAS, b, OFF_BIAS_A, 0, AN), 0);
	ck_assert_int_eq(tpu_cmd_load_params(&cmd[5], TPU_PARAM_MULT, b, OFF_MULT, 0, AN), 0);
	ck_assert_int_eq(tpu_cmd_load_params(&cmd[6], TPU_PARAM_SHIFT, b, OFF_SHIFT, 0, AN), 0);
	ck_assert_int_eq(tpu_cmd_load_output(&cmd[7], c->zp, c->qmin, c->qmax), 0);
	ck_assert_int_eq(tpu_cmd_activate(&cmd[8], 0, AROWS, AROWS, 0), 0);
	ck_assert_int_eq(tpu_cmd_load_params(&cmd[9], TPU_PARAM_BIAS, b, OFF_BIAS_B, 0, AN), 0);
	ck_assert_int_eq(tpu_cmd_activate(&cmd[10], 0, 2 * AROWS, AROWS, TPU_ACTIVATE_LUT), 0);
	ck_assert_int_eq(tpu_cmd_load_params(&cmd[11], TPU_PARAM_LUT, b, OFF_LUT_B, 0, 256), 0);
	ck_assert_int_eq(tpu_cmd_activate(&cmd[12], 0, 3 * AROWS, AROWS, TPU_ACTIVATE_LUT), 0);
	ck_assert_int_eq(tpu_cmd_write_host(&cmd[13], b, OFF_OUT, 0, AROWS, 3 * AROWS, AN, 0), 0);
	for (unsigned i = 14; i < NCMD; i++)
		ck_assert_int_eq(tpu_cmd_nop(&cmd[i]), 0);
	for (unsigned i = 0; i < NCMD; i++)
		tpu_cmd_set_tag(&cmd[i], i);
}

static void run_case(const char *uri, uint64_t seed)
{
	struct act_case c;
	int8_t want[3][AROWS][AN];
	uint32_t sat[3];
	struct tpu_cmd cmd[NCMD];
	struct tpu_cpl cpl[NCMD];
	tpu_dev *dev = NULL;
	tpu_buf *b = NULL;
	const int8_t *got;
	int rc;

	make_case(&c, seed);
	expect(&c, want, sat);
	ck_assert_msg(tpu_open(uri, &dev) == 0, "%s: %s", uri, tpu_last_open_error());
	ck_assert_int_eq(tpu_buf_alloc(dev, BUF_BYTES, &b), 0);
	fill_buffer(&c, tpu_buf_ptr(b));
	build_cmds(&c, b, cmd);
	rc = tpu_run(dev, cmd, NB1, cpl, 60000);
	if (rc == 0)
		rc = tpu_run(dev, cmd + NB1, NCMD - NB1, cpl + NB1, 60000);
	ck_assert_msg(rc == 0, "%s seed %llu: run: %s", uri, (unsigned long long)seed,
		      tpu_strerror(rc));
	for (unsigned a = 0; a < 3; a++)
		ck_assert_msg(cpl[8 + 2 * a].result == sat[a],
			      "%s seed %llu: ACTIVATE %u: saturation count %u, expected %u", uri,
			      (unsigned long long)seed, a, cpl[8 + 2 * a].result, sat[a]);
	got = (const int8_t *)tpu_buf_ptr(b) + OFF_OUT;
	for (unsigned a = 0; a < 3; a++)
		for (unsigned r = 0; r < AROWS; r++)
			for (unsigned j = 0; j < AN; j++)
				ck_assert_msg(got[(a * AROWS + r) * AN + j] == want[a][r][j],
					      "%s seed %llu: ACTIVATE %u row %u ch %u: %d, expected %d",
					      uri, (unsigned long long)seed, a, r, j,
					      got[(a * AROWS + r) * AN + j], want[a][r][j]);
	ck_assert_int_eq(tpu_buf_free(b), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
}

/* _i: 0 golden, 1.. sim with link latency 0, 20, 40 ns (with reordering and jitter on odd). */
START_TEST(activate_param_reload)
{
	char uri[128];
	uint64_t seed = harness_seed() + (uint64_t)_i;

	if (_i == 0) {
		run_case("golden:n=8,qdepth=16,mem=1M", seed);
		return;
	}
	if (!sim_have(AN))
		return;
	snprintf(uri, sizeof(uri), "sim:n=8,qdepth=16,mem=1M,latency=%u,seed=%llu%s",
		 (unsigned)(_i - 1) * 20u, (unsigned long long)seed,
		 _i & 1 ? ",reorder=1,jitter=40" : "");
	run_case(uri, seed);
}
END_TEST

TPU_TEST_SUITE(sim_activate_suite)
static Suite *sim_activate_suite(void)
{
	Suite *s = suite_create("sim_activate");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, activate_param_reload, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}
