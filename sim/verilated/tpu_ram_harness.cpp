// Harness of one Verilated tpu_ram model (see tpu_vact.h). Compiled once per parameter set with
// -DVMODEL=<prefix class> -DVMODEL_H='"<prefix>.h"' -DOPS_NAME=<ops symbol>
// -DMODEL_WIDTH=<Width> -DMODEL_DEPTH=<Depth>.
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

struct tpu_vram *create(uint64_t seed)
{
	Handle *h = new (std::nothrow) Handle{};
	if (!h)
		return nullptr;
	h->ctx = vbits_seeded_context(VL_STRINGIFY(VMODEL), "tpu_vram", seed);
	h->top = new VMODEL{h->ctx, "top"};
	h->top->clk_i = 0;
	h->top->eval();
	return reinterpret_cast<struct tpu_vram *>(h);
}

void destroy(struct tpu_vram *vh)
{
	Handle *h = reinterpret_cast<Handle *>(vh);
	if (!h)
		return;
	h->top->final();
	delete h->top;
	delete h->ctx;
	delete h;
}

void poke(struct tpu_vram *vh, bool we, uint32_t waddr, uint64_t wdata, bool re, uint32_t raddr)
{
	VMODEL *t = reinterpret_cast<Handle *>(vh)->top;
	t->we_i = we;
	t->waddr_i = waddr;
	vbits_set(t->wdata_i, 0, MODEL_WIDTH, wdata);
	t->re_i = re;
	t->raddr_i = raddr;
	t->eval();
}

uint64_t peek(struct tpu_vram *vh)
{
	VMODEL *t = reinterpret_cast<Handle *>(vh)->top;
	return vbits_get(t->rdata_o, 0, MODEL_WIDTH);
}

int tick(struct tpu_vram *vh)
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

extern "C" const struct tpu_vram_ops OPS_NAME = {
	VL_STRINGIFY(VMODEL), MODEL_WIDTH, MODEL_DEPTH, create, destroy, poke, peek, tick,
};
