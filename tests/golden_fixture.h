/* Device-level test fixture: host memory + a device, raw SQEs written into the SQ ring,
 * doorbells, gfx_run, raw CQEs read back. It deliberately uses no driver code: everything is
 * built from the spec's TPU_* constants.
 *
 * Two backends behind the same gfx_* API (chosen per test with gfx_use_golden / gfx_use_sim as
 * the first checked fixture of a TCase; every golden suite is registered once per backend):
 *   golden  the C golden model, lazy: it executes only in gfx_run (golden_run semantics).
 *   sim     the Verilated device (sim/sim_device.h) is what the test sees (its host memory,
 *           registers and access log), with a golden model run in lockstep as a shadow on a
 *           mirror of host memory. Every MMIO write that can start device activity (anything
 *           but window and queue configuration) is followed by a settle: the Verilated device
 *           is clocked until it is idle, the golden shadow runs until it is idle, and then every
 *           live buffer of the two host memories must be equal byte for byte (data, CQEs, MSIs)
 *           and both must have completed the same number of commands; every MMIO read returns
 *           the Verilated value after checking that the golden shadow reads the same (except
 *           PERF_CYCLES, which the spec leaves to each backend). gfx_run returns the commands
 *           completed since the previous gfx_run (max_cmds is ignored: the device runs freely).
 *           UB and ACC are zeroed at creation (RTL RAMs start random; the spec leaves them
 *           unspecified and the golden model starts them at zero). */
#ifndef TPU_TESTS_GOLDEN_FIXTURE_H
#define TPU_TESTS_GOLDEN_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "golden.h"
#include "hostmem.h"
#include "sim_device.h"

#define GFX_ARENA_SIZE (4u << 20)
#define GFX_IOVA_BASE 0x10000000ull
#define GFX_MAX_LOG 8192
#define GFX_MAX_BUFS 256

enum gfx_backend { GFX_GOLDEN, GFX_SIM };

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

struct gfx_buf {
	uint64_t iova;
	size_t len;
	uint8_t *p, *shadow;
};

struct gfx {
	enum gfx_backend be;
	struct hostmem *hm;  /* host memory the test sees (the device under test's) */
	struct golden *g;    /* golden: the device; sim: the shadow */
	struct golden_config cfg; /* sim: the Verilated model's configuration */
	/* sim backend only */
	struct tpu_sim *sim;
	struct hostmem *shm; /* the shadow's mirror of host memory */
	struct gfx_buf bufs[GFX_MAX_BUFS];
	unsigned nbufs;
	uint64_t sim_fetched, sim_posted; /* SQEs read, CQE PHASE dwords written */
	uint64_t sim_counted;             /* sim_posted as of the last settle */
	unsigned sim_done, golden_done;   /* commands completed since the last gfx_run */
	unsigned golden_early;            /* golden: commands a window write ran (spec §5) */
	bool hold;                        /* gfx_hold: no settle after writes */
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

/* Small defaults for tests: N = 8, 64 UB rows, 32 ACC rows (so that UB and ACC bounds differ),
 * 2 FIFO tiles, 2 queues, 4 windows (the Verilated model "s8" of mk/sim.mk). */
void gfx_config_small(struct golden_config *cfg);

/* Checked fixtures selecting the backend of the following gfx_setup* calls (add first). */
void gfx_use_golden(void);
void gfx_use_sim(void);
/* golden with the bf16 mode built in (cfg.bf16 = 1 in every gfx_setup*): the int8 suites run on
 * it too, since without FLAGS.BF16 such a device must behave exactly as an int8 one. */
void gfx_use_golden_bf16(void);
/* The backend the next gfx_setup* uses. */
enum gfx_backend gfx_backend(void);
/* One-way link latency in ns of the next gfx_setup* on sim (consumed by it; default: a 2 ns link
 * that keeps suites fast). Tests of read-ahead timing use the nominal 50 ns, so that several
 * reads are in flight at once. */
void gfx_sim_latency(uint32_t ns);
/* True when the backend can run a device of configuration cfg (NULL: small). The sim backend
 * needs a Verilated model with the same N, FIFO tiles, queues and windows, and at least cfg's
 * UB/ACC rows and queue entries; an exact match is preferred. Prints a note once when not. */
bool gfx_backend_has(enum gfx_backend be, const struct golden_config *cfg);

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

/* sim: while on, MMIO writes are not followed by a settle, so that several reach the device
 * back to back (two doorbells, a doorbell and a disable); turning it off settles. No effect on
 * golden, which does nothing until gfx_run anyway. Do no gfx_rd while holding. */
void gfx_hold(struct gfx *f, bool on);
/* Device work: golden runs up to max_cmds commands (golden_run); sim settles (see above).
 * Returns the number of commands completed. */
unsigned gfx_run(struct gfx *f, unsigned max_cmds);

void *gfx_alloc(struct gfx *f, size_t len, uint64_t *iova);
void gfx_free(struct gfx *f, uint64_t iova);
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
