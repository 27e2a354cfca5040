// Harness of the Verilated rtl/mxu/tpu_pe.sv build (Row = 1): exports tpu_vpe_ops().
#include "tpu_vharness.h"
#include "tpu_vmodels.h"

#include "Vtpu_pe_m.h"

namespace {

using inst = tpu_vh::inst<Vtpu_pe_m>;

void *create(uint64_t seed)
{
	return tpu_vh::create<Vtpu_pe_m>(seed);
}

void destroy(void *p)
{
	tpu_vh::destroy<Vtpu_pe_m>(p);
}

void step(void *p, const struct tpu_vpe_in *in, struct tpu_vpe_out *out)
{
	inst *m = (inst *)p;
	Vtpu_pe_m *t = m->top;
	t->clk_i = 0;
	t->rst_i = in->rst;
	t->a_i = (uint8_t)in->a;
	t->v_i = in->v;
	t->swap_i = in->swap;
	t->fq_i = 0;
	t->psum_i = (uint32_t)in->psum;
	t->wp_i = (uint8_t)in->wp;
	t->take_i = in->take;
	t->eval();
	out->a = (int8_t)t->a_o;
	out->psum = (int32_t)t->psum_o;
	m->ctx->timeInc(1);
	t->clk_i = 1;
	t->eval();
	m->ctx->timeInc(1);
}

const struct tpu_vpe_ops ops = {create, destroy, step};

} // namespace

extern "C" const struct tpu_vpe_ops *tpu_vpe_ops(void)
{
	return &ops;
}
