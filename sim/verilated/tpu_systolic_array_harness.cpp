// Harness of a Verilated rtl/mxu/tpu_systolic_array.sv build: exports OPS_FN() (tpu_vmodels.h).
// Compiled once per model build with -DVMODEL=<prefix> -DOPS_FN=<name> -DARR_N=<N>, and
// -DARR_BF16 for a Bf16 build (16-bit lanes and in_bf_i; see mk/rtl_mxu.mk).
#include "tpu_vharness.h"
#include "tpu_vmodels.h"

#define STR2(x) #x
#define STR(x) STR2(x)
#include STR(VMODEL.h)

namespace {

using inst = tpu_vh::inst<VMODEL>;

void *create(uint64_t seed)
{
	return tpu_vh::create<VMODEL>(seed);
}

void destroy(void *p)
{
	tpu_vh::destroy<VMODEL>(p);
}

#ifdef ARR_BF16
void lanes16_to_words(const uint16_t *lanes, uint32_t *w)
{
	for (unsigned i = 0; i < (ARR_N + 1) / 2; i++)
		w[i] = 0;
	for (unsigned j = 0; j < ARR_N; j++)
		w[j / 2] |= (uint32_t)lanes[j] << (16 * (j % 2));
}
#define LANE_BITS 16
#else
#define LANE_BITS 8
#endif

void step(void *p, const struct tpu_varr_in *in, struct tpu_varr_out *out)
{
	inst *m = (inst *)p;
	VMODEL *t = m->top;
	uint32_t w[TPU_VM_MAX_N];
	t->clk_i = 0;
	t->rst_i = in->rst;
	t->in_valid_i = in->in_valid;
	t->in_sw_i = in->in_sw;
#ifdef ARR_BF16
	t->in_bf_i = in->in_bf;
	lanes16_to_words(in->in_lane, w);
	tpu_vh::put(t->in_row_i, w, 16 * ARR_N);
	t->wt_valid_i = in->wt_valid;
	lanes16_to_words(in->wt_lane, w);
	tpu_vh::put(t->wt_row_i, w, 16 * ARR_N);
#else
	tpu_vh::lanes_to_words(in->in_row, ARR_N, 8, w);
	tpu_vh::put(t->in_row_i, w, 8 * ARR_N);
	t->wt_valid_i = in->wt_valid;
	tpu_vh::lanes_to_words(in->wt_row, ARR_N, 8, w);
	tpu_vh::put(t->wt_row_i, w, 8 * ARR_N);
#endif
	t->wt_k_i = in->wt_k;
	t->eval();
	out->out_valid = t->out_valid_o;
	tpu_vh::get(t->out_row_o, w, 32 * ARR_N);
	tpu_vh::words_to_lanes(w, ARR_N, 32, out->out_row);
	m->ctx->timeInc(1);
	t->clk_i = 1;
	t->eval();
	m->ctx->timeInc(1);
}

const struct tpu_varr_ops ops = {ARR_N, LANE_BITS, create, destroy, step};

} // namespace

extern "C" const struct tpu_varr_ops *OPS_FN(void)
{
	return &ops;
}
