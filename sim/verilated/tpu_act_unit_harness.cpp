// Harness of one Verilated tpu_act_unit model (see tpu_vact.h). Compiled once per parameter set
// with -DVMODEL=<prefix class> -DVMODEL_H='"<prefix>.h"' -DOPS_NAME=<ops symbol> -DMODEL_N=<N>
// [-DMODEL_LANES=<ActLanes> for a serial model].
#include <cinttypes>
#include <cstdio>
#include <new>
#include <string>

#include VMODEL_H
#include "tpu_vact.h"
#include "vbits.h"
#include "verilated.h"

namespace {

struct Handle {
	VerilatedContext *ctx;
	VMODEL *top;
};

struct tpu_vact *create(uint64_t seed)
{
	Handle *h = new (std::nothrow) Handle{};
	if (!h)
		return nullptr;
	h->ctx = vbits_seeded_context(VL_STRINGIFY(VMODEL), "tpu_vact", seed);
	h->top = new VMODEL{h->ctx, "top"};
	h->top->clk_i = 0;
	h->top->eval();
	return reinterpret_cast<struct tpu_vact *>(h);
}

void destroy(struct tpu_vact *vh)
{
	Handle *h = reinterpret_cast<Handle *>(vh);
	if (!h)
		return;
	h->top->final();
	delete h->top;
	delete h->ctx;
	delete h;
}

void poke(struct tpu_vact *vh, const struct tpu_vact_in *in)
{
	VMODEL *t = reinterpret_cast<Handle *>(vh)->top;
	t->rst_i = in->rst;
	t->wr_valid_i = in->wr_valid;
	t->wr_kind_i = in->wr_kind;
	t->wr_index_i = in->wr_index;
	t->wr_data_i = in->wr_data;
	t->bias_hold_i = 0; /* (BiasShadow is off in these models) */
	t->in_valid_i = in->in_valid;
	t->in_raw_i = in->in_raw;
	t->in_lut_i = in->in_lut;
	t->in_last_i = in->in_last;
	for (unsigned j = 0; j < MODEL_N; j++)
		vbits_set(t->in_acc_i, 32 * j, 32, (uint32_t)in->acc[j]);
	t->out_ready_i = in->out_ready;
	t->eval();
}

void peek(struct tpu_vact *vh, struct tpu_vact_out *out)
{
	VMODEL *t = reinterpret_cast<Handle *>(vh)->top;
	out->in_ready = t->in_ready_o;
	out->out_valid = t->out_valid_o;
	out->out_last = t->out_last_o;
	out->out_sat = t->out_sat_o;
	out->loaded = t->loaded_o;
	for (unsigned j = 0; j < MODEL_N; j++) {
		out->out_int8[j] = (int8_t)vbits_get(t->out_int8_o, 8 * j, 8);
		out->out_raw[j] = (int32_t)(uint32_t)vbits_get(t->out_raw_o, 32 * j, 32);
	}
}

int tick(struct tpu_vact *vh)
{
	Handle *h = reinterpret_cast<Handle *>(vh);
	h->top->clk_i = 1;
	h->top->eval();
	h->ctx->timeInc(1);
	h->top->clk_i = 0;
	h->top->eval();
	h->ctx->timeInc(1);
	return h->ctx->gotError() ? -1 : 0;
}

} // namespace

#ifndef MODEL_PAR_WAIT
#define MODEL_PAR_WAIT 0 /* cycles a serial model waits for its parameters per group (ParOutReg) */
#endif
#ifndef MODEL_LANES
#define MODEL_LANES 0 /* the pipelined activation */
#endif
#ifndef MODEL_ROUND
#define MODEL_ROUND 0 /* built without Round: DOUBLE only */
#endif

extern "C" const struct tpu_vact_ops OPS_NAME = {
	VL_STRINGIFY(VMODEL), MODEL_N, create,	       destroy,	    poke,
	peek,		      tick,    MODEL_LANES, MODEL_PAR_WAIT, MODEL_ROUND,
};
