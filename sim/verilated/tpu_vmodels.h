/* C API of the Verilated MXU-side RTL models (rtl/mxu/tpu_pe.sv, tpu_systolic_array.sv,
 * tpu_weight_fifo.sv, tpu_datapath.sv), for tests and benchmarks written in C.
 *
 * Each model build (one per module and parameter set, verilator --prefix) exports one
 * function returning an ops table, e.g. tpu_vdp_dp_n16_ops(). Every model instance owns its own
 * VerilatedContext, started with +verilator+rand+reset+2 and +verilator+seed+<seed>, so
 * registers and RAMs begin random and a run is reproducible from its seed.
 *
 * Cycle contract of step(): the inputs are applied with the clock low and the model settles;
 * the outputs are sampled then (so a ready that depends on valid is seen in the same cycle);
 * then the rising edge is applied. A transfer happened in that cycle iff valid && ready in the
 * returned outputs. Wide buses are little-endian arrays of 32-bit words (bit i of the bus is
 * bit i % 32 of word i / 32). Assertion failures abort the process (Check reports a crash). */
#ifndef TPU_VMODELS_H
#define TPU_VMODELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TPU_VM_MAX_N 32
#define TPU_VM_CMD_WORDS ((104 + 16 * TPU_VM_MAX_N + 31) / 32) /* (16-bit lanes: Bf16) */

/* ---- tpu_pe (Row = 1, KBits = 2) */
struct tpu_vpe_in {
	int rst;
	int8_t a;
	int v, swap;
	int32_t psum;
	int8_t wp;
	int take;
};
struct tpu_vpe_out {
	int8_t a;
	int32_t psum;
};
struct tpu_vpe_ops {
	void *(*create)(uint64_t seed);
	void (*destroy)(void *m);
	void (*step)(void *m, const struct tpu_vpe_in *in, struct tpu_vpe_out *out);
};
const struct tpu_vpe_ops *tpu_vpe_ops(void);

/* ---- the fp functions of rtl/common/tpu_fp_pkg.sv (tests/rtl/tpu_fp_probe.sv), combinational:
 * eval() applies the inputs and reads every output at once (bit patterns, see tpu/bf16.h). */
struct tpu_vfp_in {
	uint32_t a, b, c;
};
struct tpu_vfp_out {
	uint32_t add;   /* f32_add(a, b) */
	uint32_t mul;   /* bf16_mul(low half of a, low half of b) */
	uint32_t mac;   /* bf16_mac(c, low half of a, low half of b) */
	uint16_t bf16;  /* f32_to_bf16(a) */
	uint32_t canon; /* bf16_to_f32(low half of a) */
	uint32_t mul32; /* f32_mul(a, b) */
	int lt;         /* f32_lt(a, b) */
};
struct tpu_vfp_ops {
	void *(*create)(uint64_t seed);
	void (*destroy)(void *m);
	void (*eval)(void *m, const struct tpu_vfp_in *in, struct tpu_vfp_out *out);
};
const struct tpu_vfp_ops *tpu_vfp_ops(void);

/* ---- tpu_systolic_array */
struct tpu_varr_in {
	int rst;
	int in_valid, in_sw;
	int8_t in_row[TPU_VM_MAX_N];
	int wt_valid;
	int8_t wt_row[TPU_VM_MAX_N];
	unsigned wt_k;
	/* models with 16-bit lanes (lane_bits 16, Bf16 = 1) take these instead of in_row/wt_row:
	 * whole lanes (an int8 value in the low byte) and the bf16-row bit */
	int in_bf;
	uint16_t in_lane[TPU_VM_MAX_N];
	uint16_t wt_lane[TPU_VM_MAX_N];
};
struct tpu_varr_out {
	int out_valid;
	int32_t out_row[TPU_VM_MAX_N];
};
struct tpu_varr_ops {
	unsigned n;
	unsigned lane_bits; /* 8, or 16 with Bf16 */
	void *(*create)(uint64_t seed);
	void (*destroy)(void *m);
	void (*step)(void *m, const struct tpu_varr_in *in, struct tpu_varr_out *out);
};
const struct tpu_varr_ops *tpu_varr_n6_ops(void);
/* the same array with PairMul = 1: products of PE pairs from tpu_mul_pair */
const struct tpu_varr_ops *tpu_varr_n6_pair_ops(void);
/* the iCEBreaker's array at N = 4: PairMul = 2 (registered products), ProdReg (latency 2N + 1),
 * NarrowSum (partial sums in the bits int8 products reach) */
const struct tpu_varr_ops *tpu_varr_n4_narrow_ops(void);
/* the array at N = 6 with the bf16 mode (Bf16 = 1): 16-bit lanes, bf16 and int8 rows */
const struct tpu_varr_ops *tpu_varr_n6_bf16_ops(void);

/* ---- tpu_weight_fifo */
struct tpu_vwf_in {
	int rst;
	int in_valid;
	int8_t in_row[TPU_VM_MAX_N];
	int in_transpose;
	int out_ready;
};
struct tpu_vwf_out {
	int in_ready;
	int out_valid;
	int8_t out_row[TPU_VM_MAX_N];
	unsigned out_k, tiles, used;
};
struct tpu_vwf_ops {
	unsigned n, tiles;
	void *(*create)(uint64_t seed);
	void (*destroy)(void *m);
	void (*step)(void *m, const struct tpu_vwf_in *in, struct tpu_vwf_out *out);
};
const struct tpu_vwf_ops *tpu_vwf_n6_ops(void);

/* ---- tpu_datapath (command bus layout: docs/datapath.md) */
enum tpu_vdp_op {
	TPU_VDP_UB_WRITE = 0,
	TPU_VDP_PARAM = 1,
	TPU_VDP_MATMUL = 2,
	TPU_VDP_ACTIVATE = 3,
	TPU_VDP_UB_READ = 4,
	TPU_VDP_ACC_READ = 5,
};
struct tpu_vdp_in {
	int rst;
	int cmd_valid;
	uint32_t cmd[TPU_VM_CMD_WORDS];
	int wpush_valid;
	int8_t wpush_row[TPU_VM_MAX_N];    /* lane_bits 8 */
	uint16_t wpush_lane[TPU_VM_MAX_N]; /* lane_bits 16 (Bf16): int8 in the low byte, or bf16 */
	int wpush_transpose;
	int rd_ready;
};
struct tpu_vdp_out {
	int cmd_ready, wpush_ready;
	int rd_valid, rd_last;
	uint32_t rd_data[TPU_VM_MAX_N];
	int mm_done, act_done;
	uint32_t act_result;
	int idle;
	unsigned tiles, params_loaded;
	uint64_t perf_busy, perf_mxu_busy, perf_macs;
};
struct tpu_vdp_ops {
	const char *name;
	unsigned n, ub_rows, acc_rows, tiles, threads;
	/* from the profile's options: the MATMUL latency beyond 2N + 2 (AccSlice + ProdReg +
	 * UbLatency - 1, tpu_datapath header), and whether the StreamMm overlaps are built */
	unsigned mm_extra, stream_mm;
	unsigned lane_bits; /* 8, or 16 with the bf16 mode (Bf16): UB rows 2N bytes, 16-bit lanes */
	void *(*create)(uint64_t seed);
	void (*destroy)(void *m);
	void (*step)(void *m, const struct tpu_vdp_in *in, struct tpu_vdp_out *out);
};
/* The datapath models, one per profile of rtl/profiles.toml with tests, are declared in the
 * generated tpu_dp_profiles.h (tpu_vdp_<profile>_ops), with one list per test set. */

#ifdef __cplusplus
}
#endif
#endif /* TPU_VMODELS_H */
