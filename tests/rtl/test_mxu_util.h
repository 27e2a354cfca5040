/* Test driver of a Verilated tpu_datapath (tests/rtl/test_mxu_*.c): issues commands and weight
 * rows with random idle cycles, takes read rows with random back-pressure, counts completions,
 * and fails the Check test on a timeout. One cycle = one ops->step(). */
#ifndef TPU_TEST_MXU_UTIL_H
#define TPU_TEST_MXU_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "verilated/tpu_vmodels.h"

struct mxu_dp {
	const struct tpu_vdp_ops *ops;
	void *m;
	unsigned n;
	uint64_t rng;
	int idle_pct;        /* chance in % that a stream idles in a cycle */
	uint64_t cycle;      /* cycles since creation */
	struct tpu_vdp_in in;
	struct tpu_vdp_out out;
	/* weight rows waiting to be pushed (lanes: int8 values, or 16-bit lanes on a Bf16 model) */
	uint16_t *wq;
	int *wq_tr;
	size_t wq_len, wq_head, wq_cap;
	int w_offer;         /* a row is being offered (held until ready) */
	/* rows taken from the read stream */
	uint32_t *rd;
	size_t rd_rows, rd_cap;
	unsigned rd_lasts;
	/* completions */
	unsigned mm_done, act_done;
	uint32_t act_result;  /* of the latest ACTIVATE */
	uint64_t last_mm_done_cycle, last_act_done_cycle, last_accept_cycle;
};

/* Create a model (seed printed by the caller) and reset it. */
void mxu_dp_open(struct mxu_dp *d, const struct tpu_vdp_ops *ops, uint64_t seed, int idle_pct);
void mxu_dp_close(struct mxu_dp *d);
/* One clock cycle: background weight pushes and read-stream draining. */
void mxu_dp_step(struct mxu_dp *d);
/* Queue one N x N tile (rows[r*N + c] = the r-th row sent) for the weight stream. On a model
 * with 16-bit lanes (lane_bits 16) an int8 tile goes in the lanes' low bytes, with random high
 * bytes that an int8 MATMUL must ignore. */
void mxu_dp_push_tile(struct mxu_dp *d, const int8_t *rows, int transpose);
/* The same with 16-bit lanes (bf16 tiles; lane_bits 16 only). */
void mxu_dp_push_tile16(struct mxu_dp *d, const uint16_t *rows, int transpose);
/* Offer a command (after random idle cycles) and step until it is accepted. */
void mxu_dp_cmd(struct mxu_dp *d, unsigned op, unsigned flags, uint32_t a, uint32_t b,
		uint32_t rows, const void *data, size_t data_bytes);
/* Step until the weight queue is empty and the datapath is idle. */
void mxu_dp_drain(struct mxu_dp *d);
void mxu_dp_write_ub(struct mxu_dp *d, uint32_t addr, const int8_t *row);
/* A UB row of N bf16 (lane_bits 16 only): all 2N bytes. */
void mxu_dp_write_ub16(struct mxu_dp *d, uint32_t addr, const uint16_t *row);
void mxu_dp_param(struct mxu_dp *d, unsigned kind, unsigned index, uint32_t value);
/* Read rows out (UB int8 rows or ACC int32 rows); out holds rows * N values. */
void mxu_dp_read_ub(struct mxu_dp *d, uint32_t addr, uint32_t rows, int8_t *out);
void mxu_dp_read_acc(struct mxu_dp *d, uint32_t addr, uint32_t rows, int32_t *out);
/* UB rows as N 16-bit elements (lane_bits 16 only); out holds rows * N values. */
void mxu_dp_read_ub16(struct mxu_dp *d, uint32_t addr, uint32_t rows, uint16_t *out);

/* Wrapping int32 of an int64 sum: the reference model's accumulator. */
static inline int32_t mxu_wrap32(int64_t v)
{
	return (int32_t)(uint32_t)(uint64_t)v;
}

#endif
