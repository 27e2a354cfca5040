/* Device-level test fixture for the golden model: host memory + a golden device, raw SQEs written
 * into the SQ ring, doorbells, golden_run, raw CQEs read back. It deliberately uses no driver
 * code: everything is built from the spec's TPU_* constants. */
#ifndef TPU_TESTS_GOLDEN_FIXTURE_H
#define TPU_TESTS_GOLDEN_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "golden.h"
#include "hostmem.h"

#define GFX_ARENA_SIZE (4u << 20)
#define GFX_IOVA_BASE 0x10000000ull
#define GFX_MAX_LOG 8192

struct gfx_access {
	enum hostmem_dir dir;
	uint64_t iova;
	size_t len;
	uint32_t first_word; /* for writes of >= 4 bytes: the first little-endian word written */
};

struct gfx_queue {
	uint64_t sq_iova, cq_iova;
	uint8_t *sq, *cq;
	uint32_t sq_size, cq_size, sq_tail, cq_head, phase;
};

struct gfx {
	struct hostmem *hm;
	struct golden *g;
	struct golden_config cfg;
	struct gfx_queue q[TPU_NUM_QUEUES_MAX];
	uint16_t next_cid;
	/* Hook: record every device access while record is set; fail accesses of direction
	 * fail_dir (or both when fail_any_dir) overlapping [fail_lo, fail_hi] while fail_on. */
	bool record;
	struct gfx_access log[GFX_MAX_LOG];
	unsigned nlog;
	bool fail_on, fail_any_dir;
	enum hostmem_dir fail_dir;
	uint64_t fail_lo, fail_hi;
};

struct gfx_sqe {
	uint32_t dw[16];
};

struct gfx_cqe {
	uint32_t result, user_tag, sq_head, sq_id, cid, phase, sc, sct, dnr;
};

/* Small defaults for tests: N = 8, 64 UB and ACC rows, 2 FIFO tiles, 2 queues, 4 windows. */
void gfx_config_small(struct golden_config *cfg);

/* Create hostmem and device (cfg NULL: gfx_config_small), window 0 = the whole arena R+W,
 * queue 0 with 16/16 entries, enabled. */
void gfx_setup(struct gfx *f, const struct golden_config *cfg);
/* Same without programming anything (device in its power-on state). */
void gfx_setup_bare(struct gfx *f, const struct golden_config *cfg);
void gfx_teardown(struct gfx *f);

uint32_t gfx_rd(struct gfx *f, uint32_t off);
void gfx_wr(struct gfx *f, uint32_t off, uint32_t val);
/* A 64-bit PERF counter read as LO then HI. */
uint64_t gfx_perf(struct gfx *f, uint32_t lo_off);

void *gfx_alloc(struct gfx *f, size_t len, uint64_t *iova);
/* Program window w (VALID cleared, base/limit written, then perm). */
void gfx_window(struct gfx *f, unsigned w, uint64_t base, uint64_t limit, uint32_t perm);
/* Allocate rings and program queue q (device must be disabled). */
void gfx_queue_setup(struct gfx *f, unsigned q, uint32_t sq_size, uint32_t cq_size);
/* Zero every CQ, reset the host-side ring state, write CC.EN = 1. */
void gfx_enable(struct gfx *f);
void gfx_disable(struct gfx *f);

/* SQE builder. */
void gfx_sqe_field(struct gfx_sqe *s, unsigned dw, unsigned shift, uint32_t mask, uint32_t v);
#define GFX_SET(s, F, v) \
	gfx_sqe_field((s), TPU_SQE_##F##_DW, TPU_SQE_##F##_SHIFT, TPU_SQE_##F##_MASK, (uint32_t)(v))
void gfx_set_addr(struct gfx_sqe *s, uint64_t iova);
struct gfx_sqe gfx_cmd(uint32_t opcode);
struct gfx_sqe gfx_read_host(uint64_t iova, uint32_t rows, uint32_t cols, uint32_t stride,
			     uint32_t ub_row);
struct gfx_sqe gfx_load_weights(uint64_t iova, uint32_t rows, uint32_t cols, uint32_t stride,
				bool transpose);
struct gfx_sqe gfx_load_vec(uint32_t kind, uint64_t iova, uint32_t cols, uint32_t first);
struct gfx_sqe gfx_load_lut(uint64_t iova);
struct gfx_sqe gfx_load_output(int32_t zp, int32_t qmin, int32_t qmax);
struct gfx_sqe gfx_matmul(uint32_t ub_row, uint32_t acc_row, uint32_t rows, uint32_t op0);
struct gfx_sqe gfx_activate(uint32_t acc_row, uint32_t dst_row, uint32_t rows, uint32_t op0);
struct gfx_sqe gfx_write_host(uint64_t iova, uint32_t rows, uint32_t cols, uint32_t stride,
			      uint32_t local, bool from_acc);
struct gfx_sqe gfx_fence(uint64_t iova, uint64_t value);
struct gfx_sqe gfx_identify(uint64_t iova);

/* Write s at queue q's host tail (no doorbell). */
void gfx_push(struct gfx *f, unsigned q, const struct gfx_sqe *s);
/* Ring q's SQ tail doorbell with the host tail. */
void gfx_ring(struct gfx *f, unsigned q);
/* Reap the CQE at q's host head if its phase is current; writes the CQ head doorbell. */
bool gfx_reap(struct gfx *f, unsigned q, struct gfx_cqe *c);
/* Peek without consuming. */
bool gfx_peek(struct gfx *f, unsigned q, struct gfx_cqe *c);
/* Submit s on queue 0 with a fresh CID, run the device, reap its CQE (asserting the CID,
 * SQ_ID 0 and RESULT 0 on failure). Returns SC. c may be NULL. */
uint32_t gfx_exec(struct gfx *f, const struct gfx_sqe *s, struct gfx_cqe *c);
/* gfx_exec asserting success; returns RESULT. */
uint32_t gfx_ok(struct gfx *f, const struct gfx_sqe *s);

/* Fail device accesses overlapping [lo, lo + len) in direction dir (any direction if any). */
void gfx_fail_range(struct gfx *f, uint64_t lo, uint64_t len, enum hostmem_dir dir, bool any);
void gfx_fail_off(struct gfx *f);
/* Start recording every device access (clears the log). */
void gfx_record(struct gfx *f);

#endif /* TPU_TESTS_GOLDEN_FIXTURE_H */
