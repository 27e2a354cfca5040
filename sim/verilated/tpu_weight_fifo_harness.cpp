// Harness of the Verilated rtl/mxu/tpu_weight_fifo.sv build (N = 6, Tiles = 4): exports
// tpu_vwf_n6_ops().
#include "tpu_vharness.h"
#include "tpu_vmodels.h"

#include "Vtpu_wfifo_n6.h"

#define WF_N 6
#define WF_TILES 4

namespace {

using inst = tpu_vh::inst<Vtpu_wfifo_n6>;

void *create(uint64_t seed)
{
	return tpu_vh::create<Vtpu_wfifo_n6>(seed);
}

void destroy(void *p)
{
	tpu_vh::destroy<Vtpu_wfifo_n6>(p);
}

void step(void *p, const struct tpu_vwf_in *in, struct tpu_vwf_out *out)
{
	inst *m = (inst *)p;
	Vtpu_wfifo_n6 *t = m->top;
	uint32_t w[TPU_VM_MAX_N];
	t->clk_i = 0;
	t->rst_i = in->rst;
	t->in_valid_i = in->in_valid;
	tpu_vh::lanes_to_words(in->in_row, WF_N, 8, w);
	tpu_vh::put(t->in_row_i, w, 8 * WF_N);
	t->in_transpose_i = in->in_transpose;
	t->out_ready_i = in->out_ready;
	t->eval();
	out->in_ready = t->in_ready_o;
	out->out_valid = t->out_valid_o;
	tpu_vh::get(t->out_row_o, w, 8 * WF_N);
	tpu_vh::words_to_lanes(w, WF_N, 8, out->out_row);
	out->out_k = t->out_k_o;
	out->tiles = t->tiles_o;
	out->used = t->used_o;
	m->ctx->timeInc(1);
	t->clk_i = 1;
	t->eval();
	m->ctx->timeInc(1);
}

const struct tpu_vwf_ops ops = {WF_N, WF_TILES, create, destroy, step};

} // namespace

extern "C" const struct tpu_vwf_ops *tpu_vwf_n6_ops(void)
{
	return &ops;
}
