/* Verilated rtl/act/tpu_act_unit.sv (tpu_act_params + tpu_activation) at N = 4, 6, 8 and 16, and with
 * the small multi-cycle tpu_act_serial (ActLanes = 1 at N = 4, ActLanes = 2 at N = 8), against
 * the golden numerics (tpu_activate, sw/golden/numerics.c): every output value and the row's
 * saturation count, with random idle cycles on the input and random back-pressure on the
 * output; edge numerics (every shift, SRDHM and RDBPOT ties, INT32 extremes, multiplier 0 and
 * 2^31-1, bias wrap, zero point and clamp extremes, LUT on/off, RAW32; the pipelined unit
 * built with Round in each rounding mode, DOUBLE, SINGLE and FLOAT, and the others rounding as
 * DOUBLE whatever mode is loaded), the pipeline latency,
 * the loaded flags and reset, parameter read-back through the pipeline, and that the
 * handshake assertions are live. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "tpu/numerics.h"
#include "tpu/tpu_spec.h"
#include "verilated/tpu_vact.h"

/* tpu_activation's documented Latency (rtl/act/tpu_activation.sv); the latency test checks it. */
#define ACT_LATENCY 6
#define MAX_N 16

static const struct tpu_vact_ops *const models[] = {
	&tpu_vact_n4_ops,
	&tpu_vact_n6_ops,
	&tpu_vact_n8_ops,
	&tpu_vact_n16_ops,
	&tpu_vact_n4_l1_ops,
	&tpu_vact_n8_l2_ops,
	&tpu_vact_n4_l1p_ops,
};
#define N_MODELS ((int)(sizeof(models) / sizeof(models[0])))

/* The serial unit (ops->lanes != 0): per group of lanes at most 77 + 31 cycles (the split adds
 * and multiply steps take two cycles each; one shift, left or right, one bit per cycle), plus
 * the LUT read and the output; it holds one row. ParOutReg: one cycle more per group. */
static unsigned max_latency(const struct tpu_vact_ops *ops)
{
	return ops->lanes ? (ops->n / ops->lanes) * (108 + ops->par_wait) + 3 : ACT_LATENCY;
}

static unsigned capacity(const struct tpu_vact_ops *ops)
{
	return ops->lanes ? 1 : ACT_LATENCY;
}

/* ------------------------------------------------------------------ the C side of the unit */

struct params {
	struct tpu_act_channel ch[MAX_N];
	int32_t zp, qmin, qmax;
	enum tpu_round round; /* loaded with OUTPUT; a model without Round rounds as DOUBLE */
	int8_t lut[256];
};

struct row {
	int32_t acc[MAX_N];
	bool raw, lut, last;
};

struct sim {
	const struct tpu_vact_ops *ops;
	struct tpu_vact *h;
	unsigned n;
	struct tpu_vact_in in;
	struct tpu_vact_out out;
	uint64_t rng;
};

static void sim_tick(struct sim *s)
{
	ck_assert_msg(s->ops->tick(s->h) == 0, "%s: RTL assertion failed", s->ops->name);
}

/* One cycle with the current inputs and nothing to observe. */
static void sim_cycle(struct sim *s)
{
	s->ops->poke(s->h, &s->in);
	s->ops->peek(s->h, &s->out);
	sim_tick(s);
}

static void sim_open(struct sim *s, const struct tpu_vact_ops *ops, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->ops = ops;
	s->n = ops->n;
	s->rng = seed;
	s->h = ops->create(harness_rand(&s->rng));
	ck_assert_ptr_nonnull(s->h);
	s->in.rst = true;
	for (int i = 0; i < 3; i++)
		sim_cycle(s);
	s->in.rst = false;
	s->in.out_ready = true;
}

static void sim_close(struct sim *s)
{
	s->ops->destroy(s->h);
	s->h = NULL;
}

static void write_param(struct sim *s, unsigned kind, unsigned index, uint32_t data)
{
	s->in.wr_valid = true;
	s->in.wr_kind = (uint8_t)kind;
	s->in.wr_index = (uint8_t)index;
	s->in.wr_data = data;
	sim_cycle(s);
	s->in.wr_valid = false;
	/* the write port has no ready; idle gaps between writes must not matter */
	if (harness_range(&s->rng, 0, 3) == 0)
		sim_cycle(s);
}

static uint32_t output_word(const struct params *p)
{
	return ((uint32_t)p->zp & 0xff) | ((uint32_t)p->qmin & 0xff) << 8 |
	       ((uint32_t)p->qmax & 0xff) << 16 | (uint32_t)p->round << 24;
}

/* Loads every parameter of p (channels in random order); with_lut also the 256 LUT entries. */
static void load_params(struct sim *s, const struct params *p, bool with_lut)
{
	unsigned start = (unsigned)harness_range(&s->rng, 0, s->n - 1);
	for (unsigned k = 0; k < s->n; k++) {
		unsigned j = (start + k) % s->n;
		write_param(s, TPU_PARAM_BIAS, j, (uint32_t)p->ch[j].bias);
		write_param(s, TPU_PARAM_MULT, j, (uint32_t)p->ch[j].multiplier);
		write_param(s, TPU_PARAM_SHIFT, j, (uint32_t)p->ch[j].shift);
	}
	write_param(s, TPU_PARAM_OUTPUT, 0, output_word(p));
	if (with_lut)
		for (unsigned i = 0; i < 256; i++)
			write_param(s, TPU_PARAM_LUT, i, (uint8_t)p->lut[i]);
}

/* Compares one output row with the golden model; returns false (after printing) on mismatch. */
static bool check_row(const struct sim *s, const struct params *p, const struct row *r, size_t idx)
{
	const struct tpu_vact_out *o = &s->out;
	struct tpu_act_output out = { p->zp, p->qmin, p->qmax, r->lut ? p->lut : NULL,
				      s->ops->round ? p->round : TPU_ROUND_DOUBLE };
	unsigned sat_count = 0;
	bool ok = true;

	if (o->out_last != r->last) {
		printf("%s row %zu: out_last %d, want %d\n", s->ops->name, idx, o->out_last, r->last);
		ok = false;
	}
	for (unsigned j = 0; j < s->n; j++) {
		const struct tpu_act_channel *ch = &p->ch[j];
		if (r->raw) {
			int32_t want = tpu_wrap_add(r->acc[j], ch->bias);
			if (o->out_raw[j] != want) {
				printf("%s row %zu ch %u RAW32: acc %" PRId32 " bias %" PRId32
				       " -> %" PRId32 ", want %" PRId32 "\n",
				       s->ops->name, idx, j, r->acc[j], ch->bias, o->out_raw[j], want);
				ok = false;
			}
			continue;
		}
		bool sat = false;
		int8_t want = tpu_activate(r->acc[j], ch, &out, &sat);
		sat_count += sat;
		if (o->out_int8[j] != want) {
			printf("%s row %zu ch %u: acc %" PRId32 " bias %" PRId32 " M %" PRId32
			       " s %" PRId32 " zp %" PRId32 " clamp [%" PRId32 ",%" PRId32
			       "] lut %d round %d -> %d, want %d\n",
			       s->ops->name, idx, j, r->acc[j], ch->bias, ch->multiplier, ch->shift,
			       p->zp, p->qmin, p->qmax, r->lut, (int)p->round, o->out_int8[j], want);
			ok = false;
		}
	}
	if (o->out_sat != sat_count) {
		printf("%s row %zu: saturation count %" PRIu32 ", want %u\n", s->ops->name, idx,
		       o->out_sat, sat_count);
		ok = false;
	}
	return ok;
}

/* Streams rows through the unit and checks every output row in order. idle_pct: chance that
 * the input is idle in a cycle where it could present a row; stall_pct: chance that out_ready
 * is low. Returns when every row came out (the pipeline is then empty). */
static void run_rows(struct sim *s, const struct params *p, const struct row *rows, size_t n,
		     unsigned idle_pct, unsigned stall_pct)
{
	size_t next_in = 0, next_out = 0, bad = 0;
	unsigned long cycles = 0, limit = 200 + (40ul + 3 * max_latency(s->ops)) * n;

	s->in.in_valid = false;
	while (next_out < n) {
		ck_assert_msg(++cycles < limit, "%s: stuck after %zu of %zu rows", s->ops->name,
			      next_out, n);
		/* a presented row stays presented, unchanged, until it is taken */
		if (!s->in.in_valid && next_in < n &&
		    (unsigned)harness_range(&s->rng, 0, 99) >= idle_pct) {
			const struct row *r = &rows[next_in];
			s->in.in_valid = true;
			memcpy(s->in.acc, r->acc, sizeof(r->acc));
			s->in.in_raw = r->raw;
			s->in.in_lut = r->lut;
			s->in.in_last = r->last;
		} else if (!s->in.in_valid) {
			/* idle: garbage on the data lines must not matter */
			for (unsigned j = 0; j < s->n; j++)
				s->in.acc[j] = (int32_t)harness_rand(&s->rng);
			s->in.in_raw = harness_range(&s->rng, 0, 1);
			s->in.in_lut = harness_range(&s->rng, 0, 1);
			s->in.in_last = harness_range(&s->rng, 0, 1);
		}
		s->in.out_ready = (unsigned)harness_range(&s->rng, 0, 99) >= stall_pct;

		s->ops->poke(s->h, &s->in);
		s->ops->peek(s->h, &s->out);
		bool in_fire = s->in.in_valid && s->out.in_ready;
		if (s->out.out_valid && s->in.out_ready) {
			ck_assert_msg(next_out < next_in, "%s: output row without input row",
				      s->ops->name);
			if (!check_row(s, p, &rows[next_out], next_out) && ++bad >= 5)
				ck_abort_msg("%s: output mismatches (see above)", s->ops->name);
			next_out++;
		}
		sim_tick(s);
		if (in_fire) {
			next_in++;
			s->in.in_valid = false;
		}
	}
	s->in.in_valid = false;
	s->in.out_ready = true;
	ck_assert_msg(bad == 0, "%s: %zu output rows differ from the golden model (see above)",
		      s->ops->name, bad);
	/* nothing more may come out */
	for (unsigned i = 0; i < max_latency(s->ops) + 2; i++) {
		sim_cycle(s);
		ck_assert_msg(!s->out.out_valid, "%s: extra output row", s->ops->name);
	}
}

/* ------------------------------------------------------------------ random values */

static int32_t rand_i32(uint64_t *rng)
{
	return (int32_t)(uint32_t)harness_rand(rng);
}

static int32_t rand_acc(uint64_t *rng, int32_t bias)
{
	switch (harness_range(rng, 0, 7)) {
	case 0:
	case 1:
		return rand_i32(rng);
	case 2: {
		static const int32_t edges[] = { 0, 1, -1, 2, -2, INT32_MAX, INT32_MIN,
						 INT32_MAX - 1, INT32_MIN + 1, 1 << 30, -(1 << 30) };
		return edges[harness_range(rng, 0, (int64_t)(sizeof(edges) / sizeof(edges[0])) - 1)];
	}
	case 3: /* cancels the bias: small x */
		return tpu_wrap_add(-bias, (int32_t)harness_range(rng, -5000, 5000));
	default: /* random magnitude */
		return rand_i32(rng) >> harness_range(rng, 0, 31);
	}
}

/* Random parameters with a random rounding mode (has_round: the model has Round; without it
 * the mode's bits are loaded as well and must not change anything). */
static void rand_params(uint64_t *rng, struct params *p, unsigned n, bool has_round)
{
	p->round = (enum tpu_round)harness_range(rng, 0, TPU_ROUND_MAX);
	bool flt = has_round && p->round == TPU_ROUND_FLOAT;
	for (unsigned j = 0; j < n; j++) {
		struct tpu_act_channel *ch = &p->ch[j];
		switch (harness_range(rng, 0, 15)) {
		case 0:
			ch->multiplier = 0;
			break;
		case 1:
			ch->multiplier = INT32_MAX;
			break;
		case 2: /* outside the spec's range, but the golden function defines it (for
			 * DOUBLE; FLOAT takes every M <= 0 as 0 and the RTL does not) */
			ch->multiplier = flt ? (int32_t)harness_range(rng, 1, 1 << 30)
					     : (int32_t)harness_range(rng, INT32_MIN, -1);
			break;
		case 3: /* an fp32 significand (what tpu_float_multiplier gives) */
			ch->multiplier = (int32_t)harness_range(rng, 1 << 23, (1 << 24) - 1) << 7;
			break;
		default:
			ch->multiplier = (int32_t)harness_range(rng, 1 << 30, INT32_MAX);
		}
		ch->shift = harness_range(rng, 0, 2) ? (int32_t)harness_range(rng, -20, 4)
						     : (int32_t)harness_range(rng, TPU_SHIFT_MIN,
									    TPU_SHIFT_MAX);
		ch->bias = harness_range(rng, 0, 3) ? (int32_t)harness_range(rng, -100000, 100000)
						    : rand_i32(rng);
	}
	p->zp = (int32_t)harness_range(rng, -128, 127);
	if (harness_range(rng, 0, 3) == 0) {
		p->qmin = -128;
		p->qmax = 127;
	} else {
		int32_t a = (int32_t)harness_range(rng, -128, 127);
		int32_t b = (int32_t)harness_range(rng, -128, 127);
		p->qmin = a < b ? a : b;
		p->qmax = a < b ? b : a;
	}
	for (unsigned i = 0; i < 256; i++)
		p->lut[i] = (int8_t)harness_rand(rng);
}

/* ------------------------------------------------------------------ tests */

#define BATCH_MAX 96

/* Random parameters, rows, flags, idle cycles and back-pressure; every output checked. */
START_TEST(act_random_stream)
{
	const struct tpu_vact_ops *ops = models[_i];
	struct sim s;
	static struct params p;
	static struct row rows[BATCH_MAX];

	sim_open(&s, ops, harness_seed() ^ 0x72616e64ull ^ ((uint64_t)ops->n << 40));
	for (int set = 0; set < 12; set++) {
		rand_params(&s.rng, &p, s.n, s.ops->round);
		load_params(&s, &p, true);
		for (int batch = 0; batch < 4; batch++) {
			/* one "command": the same flags for its rows, last on its final row */
			size_t n = (size_t)harness_range(&s.rng, 1, BATCH_MAX);
			bool raw = harness_range(&s.rng, 0, 4) == 0;
			bool lut = !raw && harness_range(&s.rng, 0, 2) == 0;
			unsigned idle = (unsigned)harness_range(&s.rng, 0, 3) * 20;
			unsigned stall = (unsigned)harness_range(&s.rng, 0, 3) * 20;
			for (size_t r = 0; r < n; r++) {
				for (unsigned j = 0; j < s.n; j++)
					rows[r].acc[j] = rand_acc(&s.rng, p.ch[j].bias);
				rows[r].raw = raw;
				rows[r].lut = lut;
				rows[r].last = r == n - 1;
			}
			run_rows(&s, &p, rows, n, idle, stall);
		}
	}
	sim_close(&s);
}
END_TEST

/* Mixed flags row by row (the pipeline carries them per row). */
START_TEST(act_mixed_flags)
{
	const struct tpu_vact_ops *ops = models[_i];
	struct sim s;
	static struct params p;
	static struct row rows[BATCH_MAX];

	sim_open(&s, ops, harness_seed() ^ 0x6d697864ull ^ ((uint64_t)ops->n << 40));
	rand_params(&s.rng, &p, s.n, s.ops->round);
	load_params(&s, &p, true);
	for (int batch = 0; batch < 6; batch++) {
		for (size_t r = 0; r < BATCH_MAX; r++) {
			for (unsigned j = 0; j < s.n; j++)
				rows[r].acc[j] = rand_acc(&s.rng, p.ch[j].bias);
			rows[r].raw = harness_range(&s.rng, 0, 2) == 0;
			rows[r].lut = harness_range(&s.rng, 0, 1);
			rows[r].last = harness_range(&s.rng, 0, 7) == 0;
		}
		run_rows(&s, &p, rows, BATCH_MAX, (unsigned)batch * 10, 50 - (unsigned)batch * 10);
	}
	sim_close(&s);
}
END_TEST

/* Accumulator values that exercise the edges of every stage. */
static size_t edge_values(int32_t *v, size_t max)
{
	size_t n = 0;
#define PUT(x)                                  \
	do {                                    \
		if (n < max)                    \
			v[n++] = (int32_t)(x);  \
	} while (0)
	PUT(0);
	PUT(INT32_MAX);
	PUT(INT32_MIN);
	PUT(INT32_MAX - 1);
	PUT(INT32_MIN + 1);
	for (int k = -9; k <= 9; k++)
		PUT(k); /* odd x with M = 2^30: SRDHM ties x / 2 */
	for (int e = 0; e < 31; e++) {
		int64_t b = 1ll << e;
		PUT(b);
		PUT(-b);
		PUT(b + 1);
		PUT(-b - 1);
		PUT(b - 1);
		PUT(1 - b);
		if (3 * b <= INT32_MAX) {
			PUT(3 * b);
			PUT(-3 * b);
		}
	}
	/* RDBPOT ties with M = 2^30 (t = x / 2): t = (2k + 1) 2^(rs - 1), x = 2t */
	for (int rs = 1; rs <= 30; rs++)
		for (int k = -3; k <= 2; k++) {
			int64_t t = (2ll * k + 1) * (1ll << (rs - 1));
			if (2 * t >= INT32_MIN && 2 * t <= INT32_MAX)
				PUT(2 * t);
		}
	/* SRDHM ties with M = 2^15: x M = (2k + 1) 2^30 */
	for (int k = -4; k <= 3; k++)
		PUT((2ll * k + 1) << 15);
#undef PUT
	return n;
}

/* Every shift -31..30 with a set of multipliers (0, 1, 2^15, 2^30, 2^31-1, INT32_MIN and
 * random), rows of edge values, rotating zero point / clamp extremes and the LUT; the whole
 * sweep in each rounding mode on the pipelined unit (FLOAT with 2^31 - 128, an fp32
 * significand, for INT32_MIN, a multiplier LOAD_PARAMS refuses). */
START_TEST(act_edge_numerics)
{
	const struct tpu_vact_ops *ops = models[_i];
	static const int32_t mults[] = { 1 << 30, INT32_MAX, 0, 1, 1 << 15, INT32_MIN,
					 0x40000001, 0x5a827999 };
	static const int32_t outs[][3] = {
		{ 0, -128, 127 }, { 127, -128, 127 }, { -128, -128, 127 }, { 0, 0, 0 },
		{ 5, -3, 100 },   { -128, 127, 127 }, { 127, -128, -128 }, { -1, -128, 127 },
	};
	const unsigned n_shifts = TPU_SHIFT_MAX - TPU_SHIFT_MIN + 1;
	const unsigned n_mults = sizeof(mults) / sizeof(mults[0]);
	const unsigned n_cfg = n_shifts * n_mults;
	static int32_t vals[1024];
	static struct row rows[1024];
	static struct params p;
	struct sim s;
	size_t nv = edge_values(vals, 1024);

	sim_open(&s, ops, harness_seed() ^ 0x65646765ull ^ ((uint64_t)ops->n << 40));
	for (unsigned i = 0; i < 256; i++)
		p.lut[i] = (int8_t)(255 - i); /* a LUT that visibly differs from the identity */
	unsigned modes = ops->round ? TPU_ROUND_MAX + 1 : 1;
	for (unsigned sweep = 0, load = 0; sweep < modes * n_cfg; sweep += s.n, load++) {
		unsigned base = sweep % n_cfg;
		p.round = (enum tpu_round)(sweep / n_cfg);
		for (unsigned j = 0; j < s.n; j++) {
			unsigned c = (base + j) % n_cfg;
			p.ch[j].shift = TPU_SHIFT_MIN + (int32_t)(c % n_shifts);
			p.ch[j].multiplier = mults[c / n_shifts];
			if (p.round == TPU_ROUND_FLOAT && p.ch[j].multiplier < 0)
				p.ch[j].multiplier = 0x7fffff80;
			p.ch[j].bias = 0;
		}
		const int32_t *o = outs[load % (sizeof(outs) / sizeof(outs[0]))];
		p.zp = o[0];
		p.qmin = o[1];
		p.qmax = o[2];
		load_params(&s, &p, load == 0);
		/* the serial unit is slow: a window of the values per load (the first 8, with 0 and
		 * the INT32 extremes, always), moving through all of them from load to load */
		size_t nr = ops->lanes ? 40 : nv;
		for (size_t r = 0; r < nr; r++) {
			size_t v = ops->lanes && r >= 8 ? (load * 32 + r) % nv : r;
			/* channel j sees the value of row r + j: every channel every value */
			for (unsigned j = 0; j < s.n; j++)
				rows[r].acc[j] = vals[(v + j) % nv];
			rows[r].raw = false;
			rows[r].lut = (load & 2) != 0;
			rows[r].last = r == nr - 1;
		}
		run_rows(&s, &p, rows, nr, load % 3 == 0 ? 30 : 0, load % 4 == 1 ? 30 : 0);
	}
	sim_close(&s);
}
END_TEST

/* acc + bias wraps, in RAW32 and in the int8 path (shift 0, M = 2^31-1 passes x nearly). */
START_TEST(act_bias_wrap_raw32)
{
	const struct tpu_vact_ops *ops = models[_i];
	static const int32_t biases[] = { INT32_MAX, INT32_MIN, -1, 1, 0, 0x12345678 };
	static struct params p;
	static struct row rows[64];
	struct sim s;

	sim_open(&s, ops, harness_seed() ^ 0x77726170ull ^ ((uint64_t)ops->n << 40));
	for (unsigned j = 0; j < s.n; j++) {
		p.ch[j].bias = biases[j % (sizeof(biases) / sizeof(biases[0]))];
		p.ch[j].multiplier = j & 1 ? INT32_MAX : 1 << 30;
		p.ch[j].shift = j & 2 ? -24 : 0;
	}
	p.zp = 0;
	p.qmin = -128;
	p.qmax = 127;
	load_params(&s, &p, false);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t r = 0; r < 64; r++) {
			for (unsigned j = 0; j < s.n; j++)
				rows[r].acc[j] = rand_acc(&s.rng, p.ch[j].bias);
			rows[r].acc[r % s.n] = r & 1 ? INT32_MAX : INT32_MIN;
			rows[r].raw = pass == 0;
			rows[r].lut = false;
			rows[r].last = r == 63;
		}
		run_rows(&s, &p, rows, 64, 20, 20);
	}
	sim_close(&s);
}
END_TEST

/* The first result appears exactly ACT_LATENCY cycles after the input transfer; a stalled
 * output holds the pipeline (in_ready low once it is full) without losing rows. */
START_TEST(act_latency_and_stall)
{
	const struct tpu_vact_ops *ops = models[_i];
	static struct params p;
	static struct row rows[3 * ACT_LATENCY];
	struct sim s;

	sim_open(&s, ops, harness_seed() ^ 0x6c6174ull ^ ((uint64_t)ops->n << 40));
	rand_params(&s.rng, &p, s.n, s.ops->round);
	load_params(&s, &p, false);

	/* latency */
	s.in.in_valid = true;
	for (unsigned j = 0; j < s.n; j++)
		s.in.acc[j] = (int32_t)j;
	s.in.out_ready = true;
	s.ops->poke(s.h, &s.in);
	s.ops->peek(s.h, &s.out);
	ck_assert(s.out.in_ready);
	sim_tick(&s);
	s.in.in_valid = false;
	int seen = -1;
	for (int c = 1; c <= 2 * (int)max_latency(ops); c++) {
		s.ops->poke(s.h, &s.in);
		s.ops->peek(s.h, &s.out);
		if (s.out.out_valid) {
			ck_assert_int_eq(seen, -1);
			seen = c;
		}
		sim_tick(&s);
	}
	if (ops->lanes)
		ck_assert(seen > 0 && seen <= (int)max_latency(ops));
	else
		ck_assert_int_eq(seen, ACT_LATENCY);

	/* stall: out_ready low; rows keep going in until the pipeline is full */
	for (size_t r = 0; r < 3 * ACT_LATENCY; r++) {
		for (unsigned j = 0; j < s.n; j++)
			rows[r].acc[j] = rand_acc(&s.rng, p.ch[j].bias);
		rows[r].raw = false;
		rows[r].lut = false;
		rows[r].last = r == 3 * ACT_LATENCY - 1;
	}
	size_t in = 0, out = 0;
	s.in.out_ready = false;
	for (unsigned c = 0; c < 4 * max_latency(ops); c++) {
		s.in.in_valid = true;
		memcpy(s.in.acc, rows[in].acc, sizeof(rows[in].acc));
		s.in.in_last = rows[in].last;
		s.ops->poke(s.h, &s.in);
		s.ops->peek(s.h, &s.out);
		if (s.out.in_ready)
			in++;
		sim_tick(&s);
	}
	/* a full pipeline holds Latency rows (the serial unit one); one more never gets in */
	ck_assert_uint_eq(in, capacity(ops));
	ck_assert(s.out.out_valid);
	ck_assert(!s.out.in_ready);
	/* drain with everything checked */
	s.in.out_ready = true;
	while (out < 3 * ACT_LATENCY) {
		if (in < 3 * ACT_LATENCY) {
			s.in.in_valid = true;
			memcpy(s.in.acc, rows[in].acc, sizeof(rows[in].acc));
			s.in.in_last = rows[in].last;
		} else {
			s.in.in_valid = false;
		}
		s.ops->poke(s.h, &s.in);
		s.ops->peek(s.h, &s.out);
		if (s.out.out_valid) {
			ck_assert(check_row(&s, &p, &rows[out], out));
			out++;
		}
		if (s.in.in_valid && s.out.in_ready)
			in++;
		sim_tick(&s);
		ck_assert_uint_le(out, in);
	}
	sim_close(&s);
}
END_TEST

/* loaded_o: reset clears the flags only; each kind's write sets its own bit. The values
 * survive the reset (read back through the pipeline afterwards). */
START_TEST(act_loaded_flags_and_reset)
{
	const struct tpu_vact_ops *ops = models[_i];
	static const unsigned kinds[] = { TPU_PARAM_SHIFT, TPU_PARAM_LUT, TPU_PARAM_BIAS,
					  TPU_PARAM_OUTPUT, TPU_PARAM_MULT };
	static struct params p;
	static struct row rows[32];
	struct sim s;

	sim_open(&s, ops, harness_seed() ^ 0x6c6f6164ull ^ ((uint64_t)ops->n << 40));
	sim_cycle(&s);
	ck_assert_uint_eq(s.out.loaded, 0);
	unsigned want = 0;
	for (unsigned k = 0; k < 5; k++) {
		write_param(&s, kinds[k], 0, 0);
		sim_cycle(&s);
		want |= 1u << kinds[k];
		ck_assert_uint_eq(s.out.loaded, want);
	}
	rand_params(&s.rng, &p, s.n, s.ops->round);
	load_params(&s, &p, true);
	s.in.rst = true;
	sim_cycle(&s);
	s.in.rst = false;
	sim_cycle(&s);
	ck_assert_uint_eq(s.out.loaded, 0);
	for (size_t r = 0; r < 32; r++) {
		for (unsigned j = 0; j < s.n; j++)
			rows[r].acc[j] = rand_acc(&s.rng, p.ch[j].bias);
		rows[r].raw = r % 3 == 0;
		rows[r].lut = r % 3 == 1;
		rows[r].last = r == 31;
	}
	run_rows(&s, &p, rows, 32, 10, 10);
	/* reset in the middle of a stream: nothing comes out afterwards */
	s.in.in_valid = true;
	for (int c = 0; c < 3; c++)
		sim_cycle(&s);
	s.in.in_valid = false;
	s.in.rst = true;
	sim_cycle(&s);
	s.in.rst = false;
	for (unsigned c = 0; c < 2 * max_latency(ops); c++) {
		sim_cycle(&s);
		ck_assert(!s.out.out_valid);
	}
	sim_close(&s);
}
END_TEST

/* Parameter read-back through the pipeline: every LUT entry of every channel (identity
 * requantization: M = 2^30, s = 1 gives y = x), bias per channel via RAW32 rows of zeros, and
 * a partial reload that must leave the other channels alone. */
START_TEST(act_params_readback)
{
	const struct tpu_vact_ops *ops = models[_i];
	static struct params p;
	static struct row rows[256];
	struct sim s;

	sim_open(&s, ops, harness_seed() ^ 0x72626b ^ ((uint64_t)ops->n << 40));
	for (unsigned j = 0; j < s.n; j++) {
		p.ch[j].bias = rand_i32(&s.rng);
		p.ch[j].multiplier = 1 << 30;
		p.ch[j].shift = 1;
	}
	p.zp = 0;
	p.qmin = -128;
	p.qmax = 127;
	for (unsigned i = 0; i < 256; i++)
		p.lut[i] = (int8_t)harness_rand(&s.rng);
	load_params(&s, &p, true);

	/* bias read-back */
	for (size_t r = 0; r < 4; r++) {
		memset(rows[r].acc, 0, sizeof(rows[r].acc));
		rows[r].raw = true;
		rows[r].lut = false;
		rows[r].last = r == 3;
	}
	run_rows(&s, &p, rows, 4, 0, 0);

	/* LUT read-back: acc = v - bias so that y = v, for every v in -128..127 */
	for (size_t r = 0; r < 256; r++) {
		for (unsigned j = 0; j < s.n; j++)
			rows[r].acc[j] = tpu_wrap_add((int32_t)((r + 37 * j) % 256) - 128,
						      -p.ch[j].bias);
		rows[r].raw = false;
		rows[r].lut = true;
		rows[r].last = r == 255;
	}
	run_rows(&s, &p, rows, 256, 10, 10);

	/* partial reload: new bias for channel 1 only, new LUT entries 0..9 only */
	p.ch[1 % s.n].bias = rand_i32(&s.rng);
	write_param(&s, TPU_PARAM_BIAS, 1 % s.n, (uint32_t)p.ch[1 % s.n].bias);
	for (unsigned i = 0; i < 10; i++) {
		p.lut[i] = (int8_t)harness_rand(&s.rng);
		write_param(&s, TPU_PARAM_LUT, i, (uint8_t)p.lut[i]);
	}
	for (size_t r = 0; r < 256; r++)
		for (unsigned j = 0; j < s.n; j++)
			rows[r].acc[j] = tpu_wrap_add((int32_t)((r + 11 * j) % 256) - 128,
						      -p.ch[j].bias);
	run_rows(&s, &p, rows, 256, 0, 30);
	sim_close(&s);
}
END_TEST

/* The handshake assertions are live: withdrawing in_valid while the input is stalled, or
 * changing the row while stalled, makes tick() report the failure. */
START_TEST(act_assertions_fire)
{
	const struct tpu_vact_ops *ops = &tpu_vact_n4_ops;
	struct sim s;

	printf("act_assertions_fire: the three RTL assertion failures below are expected\n");
	for (int variant = 0; variant < 2; variant++) {
		sim_open(&s, ops, harness_seed() ^ 0x61737274ull ^ (uint64_t)variant);
		/* fill the pipeline with the output stalled */
		s.in.out_ready = false;
		s.in.in_valid = true;
		for (int c = 0; c < ACT_LATENCY + 1; c++)
			sim_cycle(&s);
		s.ops->poke(s.h, &s.in);
		s.ops->peek(s.h, &s.out);
		ck_assert(!s.out.in_ready);
		ck_assert_int_eq(s.ops->tick(s.h), 0);
		if (variant == 0)
			s.in.in_valid = false;
		else
			s.in.acc[0] ^= 1;
		s.ops->poke(s.h, &s.in);
		ck_assert_int_eq(s.ops->tick(s.h), -1);
		sim_close(&s);
	}
	/* a channel write outside 0..N-1 */
	sim_open(&s, ops, harness_seed() ^ 0x62616463ull);
	s.in.wr_valid = true;
	s.in.wr_kind = TPU_PARAM_BIAS;
	s.in.wr_index = (uint8_t)s.n;
	s.ops->poke(s.h, &s.in);
	ck_assert_int_eq(s.ops->tick(s.h), -1);
	sim_close(&s);
}
END_TEST

TPU_TEST_SUITE(suite_rtl_act)
static Suite *suite_rtl_act(void)
{
	Suite *s = suite_create("rtl_act");
	TCase *tc = tcase_create("verilated");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, act_random_stream, 0, N_MODELS);
	tcase_add_loop_test(tc, act_mixed_flags, 0, N_MODELS);
	tcase_add_loop_test(tc, act_edge_numerics, 0, N_MODELS);
	tcase_add_loop_test(tc, act_bias_wrap_raw32, 0, N_MODELS);
	tcase_add_loop_test(tc, act_latency_and_stall, 0, N_MODELS);
	tcase_add_loop_test(tc, act_loaded_flags_and_reset, 0, N_MODELS);
	tcase_add_loop_test(tc, act_params_readback, 0, N_MODELS);
	tcase_add_test(tc, act_assertions_fire);
	suite_add_tcase(s, tc);
	return s;
}
