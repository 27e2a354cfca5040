// Harness of the Verilated tests/rtl/tpu_fp_probe.sv (the functions of rtl/common/tpu_fp_pkg.sv):
// exports tpu_vfp_ops().
#include "tpu_vharness.h"
#include "tpu_vmodels.h"

#include "Vtpu_fp_probe.h"

namespace {

// (no clock or reset: the probe is combinational)
void *create(uint64_t seed)
{
	tpu_vh::inst<Vtpu_fp_probe> *m = new tpu_vh::inst<Vtpu_fp_probe>;
	m->ctx = tpu_vh::make_context(seed);
	m->top = new Vtpu_fp_probe(m->ctx.get(), "top");
	return m;
}

void destroy(void *p)
{
	tpu_vh::destroy<Vtpu_fp_probe>(p);
}

void eval(void *p, const struct tpu_vfp_in *in, struct tpu_vfp_out *out)
{
	Vtpu_fp_probe *t = ((tpu_vh::inst<Vtpu_fp_probe> *)p)->top;
	t->a_i = in->a;
	t->b_i = in->b;
	t->c_i = in->c;
	t->eval();
	out->add = t->add_o;
	out->mul = t->mul_o;
	out->mac = t->mac_o;
	out->bf16 = t->bf16_o;
	out->canon = t->canon_o;
	out->mul32 = t->mul32_o;
	out->lt = t->lt_o;
}

const struct tpu_vfp_ops ops = {create, destroy, eval};

} // namespace

extern "C" const struct tpu_vfp_ops *tpu_vfp_ops(void)
{
	return &ops;
}
