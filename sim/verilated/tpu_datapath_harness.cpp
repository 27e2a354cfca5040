// Harness of a Verilated rtl/datapath/tpu_datapath.sv build: exports OPS_FN() (tpu_vmodels.h).
// Compiled once per model build with -DVMODEL=<prefix> -DOPS_FN=<name> -DDP_N=.. -DDP_UB=..
// -DDP_ACC=.. -DDP_TILES=.. -DDP_THREADS=.. -DDP_MM_EXTRA=.. -DDP_STREAM_MM=.. -DDP_LANE=8|16
// (the profile's,
// scripts/profiles.py; see mk/rtl_mxu.mk).
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

void step(void *p, const struct tpu_vdp_in *in, struct tpu_vdp_out *out)
{
	inst *m = (inst *)p;
	VMODEL *t = m->top;
	uint32_t w[TPU_VM_MAX_N];

	t->clk_i = 0;
	t->rst_i = in->rst;
	t->cmd_valid_i = in->cmd_valid;
	tpu_vh::put(t->cmd_i, in->cmd, 104 + DP_LANE * DP_N);
	t->wpush_valid_i = in->wpush_valid;
#if DP_LANE == 16
	tpu_vh::lanes_to_words(in->wpush_lane, DP_N, 16, w);
#else
	tpu_vh::lanes_to_words(in->wpush_row, DP_N, 8, w);
#endif
	tpu_vh::put(t->wpush_row_i, w, DP_LANE * DP_N);
	t->wpush_transpose_i = in->wpush_transpose;
	t->rd_ready_i = in->rd_ready;
	t->eval();

	out->cmd_ready = t->cmd_ready_o;
	out->wpush_ready = t->wpush_ready_o;
	out->rd_valid = t->rd_valid_o;
	out->rd_last = t->rd_last_o;
	tpu_vh::get(t->rd_data_o, out->rd_data, 32 * DP_N);
	out->mm_done = t->mm_done_o;
	out->act_done = t->act_done_o;
	out->act_result = t->act_result_o;
	out->idle = t->idle_o;
	out->tiles = t->tiles_o;
	/* bits per tpu_pkg::param_kind_e: SCALE (5) and FCLAMP (6) from fp_loaded_o */
	out->params_loaded = t->params_loaded_o | (unsigned)t->fp_loaded_o << 5;
	out->perf_busy = t->perf_busy_o;
	out->perf_mxu_busy = t->perf_mxu_busy_o;
	out->perf_macs = t->perf_macs_o;

	m->ctx->timeInc(1);
	t->clk_i = 1;
	t->eval();
	m->ctx->timeInc(1);
}

const struct tpu_vdp_ops ops = {
	STR(VMODEL), DP_N, DP_UB, DP_ACC, DP_TILES, DP_THREADS, DP_MM_EXTRA, DP_STREAM_MM,
	DP_LANE, create, destroy, step,
};

} // namespace

extern "C" const struct tpu_vdp_ops *OPS_FN(void)
{
	return &ops;
}
