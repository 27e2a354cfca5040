// Harness of one Verilated tpu_device build (rtl/top/tpu_device.sv), exported to C as a
// struct tpu_sim_model (sim/sim_model.h) named SIM_MODEL_SYM. Compiled once per parameter set by
// mk/sim.mk with -DVMODEL=<prefix class> -DVMODEL_H='"<prefix>.h"' -DSIM_MODEL_SYM=<symbol>
// -DSIM_NAME='"n8"' and -DP_* for every parameter the model was verilated with (-G...), and
// -DSIM_TRACE=1 when the model was verilated with --trace-fst.
//
// Each instance owns its VerilatedContext, started with +verilator+rand+reset+2 and
// +verilator+seed+<seed> (printed on stderr with TPU_SIM_VERBOSE=1), so registers and RAMs begin random and a run is
// reproducible from its seed. step() is the cycle contract of sim_model.h: inputs applied with
// the clock low, outputs sampled after settling, then the rising edge.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include VMODEL_H
#include "sim_model.h"
#include "vseed.h"
#include "verilated.h"
#if SIM_TRACE
#include "verilated_fst_c.h"
#endif

namespace {

struct Handle {
	VerilatedContext *ctx;
	VMODEL *top;
#if SIM_TRACE
	VerilatedFstC *fst;
#endif
	int errors_seen;
	bool got_error_seen;
};

// Byte-wise access to data buses of any width (scalar ports up to 64 bits, or VlWide).
template <typename T> void put_bytes(T &port, const uint8_t *b, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n && i < sizeof(T); i++)
		v |= (uint64_t)b[i] << (8 * i);
	port = (T)v;
}
template <std::size_t W> void put_bytes(VlWide<W> &port, const uint8_t *b, unsigned n)
{
	for (std::size_t w = 0; w < W; w++) {
		uint32_t v = 0;
		for (unsigned k = 0; k < 4 && w * 4 + k < n; k++)
			v |= (uint32_t)b[w * 4 + k] << (8 * k);
		port[w] = v;
	}
}
template <typename T> void get_bytes(const T &port, uint8_t *b, unsigned n)
{
	uint64_t v = (uint64_t)port;
	for (unsigned i = 0; i < n; i++)
		b[i] = i < sizeof(T) ? (uint8_t)(v >> (8 * i)) : 0;
}
template <std::size_t W> void get_bytes(const VlWide<W> &port, uint8_t *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		b[i] = i / 4 < W ? (uint8_t)(port[i / 4] >> (8 * (i % 4))) : 0;
}

int create(const struct tpu_sim_model *m, uint64_t seed, const char *trace, void **out)
{
	(void)m;
#if !SIM_TRACE
	if (trace)
		return -EINVAL;
#endif
	Handle *h = new (std::nothrow) Handle{};
	if (!h)
		return -ENOMEM;
	unsigned vseed = tpu_verilator_seed(seed); // 31 bits, non-zero (vseed.h)
	std::string seed_arg = "+verilator+seed+" + std::to_string(vseed);
	const char *argv[] = {"tpu_sim", "+verilator+rand+reset+2", seed_arg.c_str()};
	// The seed follows from the URI's seed (default 1), so a run is reproducible from its URI;
	// TPU_SIM_VERBOSE=1 prints it (not by default: the CLI keeps stderr for errors).
	const char *verbose = std::getenv("TPU_SIM_VERBOSE");
	if (verbose && *verbose && std::strcmp(verbose, "0") != 0)
		std::fprintf(stderr, "sim: %s (%s): %s %s\n", VL_STRINGIFY(VMODEL), SIM_NAME,
			     argv[1], argv[2]);
	h->ctx = new VerilatedContext;
	h->ctx->fatalOnError(false); // an assertion failure is reported by step(), not abort()
	h->ctx->commandArgs(3, argv);
#if SIM_TRACE
	if (trace)
		h->ctx->traceEverOn(true);
#endif
	h->top = new VMODEL{h->ctx, "top"};
#if SIM_TRACE
	if (trace) {
		h->fst = new VerilatedFstC;
		h->top->trace(h->fst, 99);
		h->fst->open(trace);
		if (!h->fst->isOpen()) {
			delete h->fst;
			delete h->top;
			delete h->ctx;
			delete h;
			return -EINVAL;
		}
	}
#endif
	h->top->clk_i = 0;
	h->top->rst_i = 1;
	h->top->eval();
	*out = h;
	return 0;
}

void destroy(void *vh)
{
	Handle *h = static_cast<Handle *>(vh);
	if (!h)
		return;
	h->top->final();
#if SIM_TRACE
	if (h->fst) {
		h->fst->close();
		delete h->fst;
	}
#endif
	delete h->top;
	delete h->ctx;
	delete h;
}

// Evaluate the model after a clock edge and dump the trace, one time unit per half cycle.
void half_cycle(Handle *h)
{
	h->top->eval();
#if SIM_TRACE
	if (h->fst)
		h->fst->dump(h->ctx->time());
#endif
	h->ctx->timeInc(1);
}

int step(void *vh, int rst, const struct tpu_link_in *in, struct tpu_link_out *out)
{
	Handle *h = static_cast<Handle *>(vh);
	VMODEL *t = h->top;

	t->rst_i = rst ? 1 : 0;
	t->dreq_ready_i = in->dreq_ready;
	t->hcpl_valid_i = in->hcpl_valid;
	t->hcpl_tag_i = in->hcpl_tag;
	t->hcpl_status_i = in->hcpl_status;
	t->hcpl_last_i = in->hcpl_last;
	put_bytes(t->hcpl_data_i, in->hcpl_data, P_LINK_BYTES);
	t->mreq_valid_i = in->mreq_valid;
	t->mreq_write_i = in->mreq_write;
	t->mreq_addr_i = in->mreq_addr;
	t->mreq_wdata_i = in->mreq_wdata;
	t->mreq_tag_i = in->mreq_tag;
	t->mcpl_ready_i = in->mcpl_ready;
	t->clk_i = 0;
	half_cycle(h);

	out->dreq_valid = t->dreq_valid_o;
	out->dreq_kind = t->dreq_kind_o;
	out->dreq_tag = t->dreq_tag_o;
	out->dreq_len = t->dreq_len_o;
	out->dreq_addr = t->dreq_addr_o;
	out->dreq_last = t->dreq_last_o;
	get_bytes(t->dreq_data_o, out->dreq_data, P_LINK_BYTES);
	out->hcpl_ready = t->hcpl_ready_o;
	out->mreq_ready = t->mreq_ready_o;
	out->mcpl_valid = t->mcpl_valid_o;
	out->mcpl_tag = t->mcpl_tag_o;
	out->mcpl_rdata = t->mcpl_rdata_o;

	t->clk_i = 1;
	half_cycle(h);
	// Report each new error once (gotError is sticky).
	if (h->ctx->errorCount() != h->errors_seen || (h->ctx->gotError() && !h->got_error_seen)) {
		h->errors_seen = h->ctx->errorCount();
		h->got_error_seen = h->ctx->gotError();
		return -EIO;
	}
	return 0;
}

} // namespace

extern "C" const struct tpu_sim_model SIM_MODEL_SYM = {
	SIM_NAME,
	P_N, P_UB_ROWS, P_ACC_ROWS, P_TILES, P_NUM_QUEUES, P_NUM_WINDOWS, P_MAX_QUEUE_ENTRIES,
	P_LINK_BYTES, P_MAX_PAYLOAD, P_MAX_READ_REQ, P_TAGS, P_BF16,
	create, destroy, step,
};
