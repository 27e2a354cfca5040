/* libFuzzer harness: the device's command stream. The input is a program of host operations on
 * one queue (push a random, often invalid, SQE; ring the doorbell; reprogram a window the way
 * tpu_window_set does; let the device run ahead; reset) played on the golden model and, when the
 * Verilated model "s8" is linked, on the Verilated device behind the link model in lockstep.
 * Oracles, checked on every device access and after every settle:
 *   - windows: every data access (not the rings) lies inside a window that is valid with the
 *     needed permission; while a window write is pending (until CSTS.WPEND reads 0) the old
 *     windows count too, after it only the new (docs/spec.md §5, the IOMMU rule);
 *   - canaries: the guard bytes around the three data buffers, which no window ever covers,
 *     never change;
 *   - one completion per command: every doorbelled command completes exactly once, in order;
 *   - lockstep: host memory, completions and the exact registers (GSTAT, ERRLOG, queue state,
 *     PERF counters but cycles) are the same on both devices after every settle.
 * A violation aborts, so libFuzzer keeps the input as a crash.
 * TPU_FUZZ_BF16=1 (golden only, as TPU_FUZZ_GOLDEN_ONLY; the bf16 sim device's lockstep is
 * tests/test_sim_diff.c) runs a golden device with the bf16 mode (docs/spec.md 6.12), with bf16 row sizes for FLAGS.BF16 commands and
 * the SCALE and FCLAMP kinds and ACTIVATE bits among the random commands. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "golden.h"
#include "hostmem.h"
#include "sim_device.h"
#include "sim_model.h"
#include "tpu/tpu_spec.h"

#define IOVA_BASE 0x10000000ull
#define ARENA (64u << 10)
#define QD 16u      /* SQ and CQ entries */
#define NB 3u       /* data buffers */
#define BUFB 4096u  /* each as large as an IDENTIFY page */
#define GUARD 256u  /* canary bytes before, between and after them */
#define CANARY 0xA7
#define NWIN 4u
#define MAX_OPS 96u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct win {
	uint64_t base, limit;
	uint32_t perm;
};

/* One device and its own copy of host memory (same layout, same IOVAs). */
struct side {
	struct hostmem *hm;
	struct golden *g;     /* the golden side */
	struct tpu_sim *sim;  /* the Verilated side */
	uint8_t *sq, *cq, *region;
	uint64_t fetched, posted; /* sim: SQEs read, CQE phase dwords written */
};

struct world {
	struct side gold, vsim;
	bool lockstep;
	bool bf16; /* TPU_FUZZ_BF16: the golden device has the bf16 mode */
	uint64_t sq_iova, cq_iova, region_iova;
	struct win cur[NWIN], old[NWIN];
	bool pending; /* a window write on its way: old[] still allowed */
	/* host ring state of queue 0 */
	unsigned sq_tail, cq_head, phase, rung;
	uint16_t cids[QD], next_cid;
	unsigned nout; /* pushed, not yet completed (cids[0..nout) in order) */
};

static struct world W;

static uint64_t buf_iova(unsigned b)
{
	return W.region_iova + GUARD + (uint64_t)b * (BUFB + GUARD);
}

static bool in_range(uint64_t iova, size_t len, uint64_t lo, uint64_t bytes)
{
	return iova >= lo && iova - lo <= bytes && len <= bytes - (iova - lo);
}

static bool window_allows(const struct win *t, enum hostmem_dir dir, uint64_t iova, size_t len)
{
	uint32_t need = dir == HOSTMEM_WRITE ? TPU_WIN_PERM_W_MASK : TPU_WIN_PERM_R_MASK;

	for (unsigned w = 0; w < NWIN; w++) {
		if (!(t[w].perm & TPU_WIN_PERM_VALID_MASK) || !(t[w].perm & need) ||
		    t[w].limit < t[w].base)
			continue;
		if (iova >= t[w].base && iova + len - 1 <= t[w].limit && iova + len - 1 >= iova)
			return true;
	}
	return false;
}

/* Every device access, on either side, before it is performed. */
static int hook(void *ctx, enum hostmem_dir dir, uint64_t iova, size_t len)
{
	const char *side = ctx;

	if (in_range(iova, len, W.sq_iova, QD * TPU_SQE_BYTES) ||
	    in_range(iova, len, W.cq_iova, QD * TPU_CQE_BYTES))
		return 0;
	FUZZ_CHECK(window_allows(W.cur, dir, iova, len) ||
			   (W.pending && window_allows(W.old, dir, iova, len)),
		   "%s: %s of %zu bytes at 0x%llx outside every window%s", side,
		   dir == HOSTMEM_WRITE ? "write" : "read", len, (unsigned long long)iova,
		   W.pending ? " (old or new)" : "");
	return 0;
}

/* ---------------------------------------------------------------- the sim side's memory */

static int sim_read(void *ctx, uint64_t iova, void *dst, size_t len)
{
	int err = hostmem_dma_read(W.vsim.hm, iova, dst, len);

	(void)ctx;
	if (!err && in_range(iova, len, W.sq_iova, QD * TPU_SQE_BYTES))
		W.vsim.fetched += len / TPU_SQE_BYTES;
	return err;
}

static int sim_write(void *ctx, uint64_t iova, const void *src, size_t len)
{
	(void)ctx;
	if (in_range(iova, len, W.cq_iova, QD * TPU_CQE_BYTES))
		for (uint64_t a = iova; a < iova + len; a++)
			W.vsim.posted += (a - W.cq_iova) % TPU_CQE_BYTES == 15;
	return hostmem_dma_write(W.vsim.hm, iova, src, len);
}

/* ---------------------------------------------------------------- both devices */

static void wr(uint32_t off, uint32_t val)
{
	if (W.lockstep)
		tpu_sim_mmio_write(W.vsim.sim, off, val);
	golden_mmio_write(W.gold.g, off, val);
}

static uint32_t sim_rd(uint32_t off)
{
	return tpu_sim_mmio_read(W.vsim.sim, off);
}

/* Run the sim until every fetched command has posted its CQE and the link has been quiet (as
 * tests/golden_fixture.c settles), and golden until it has nothing to fetch. */
static void settle(void)
{
	if (W.lockstep) {
		struct tpu_link *l = tpu_sim_link(W.vsim.sim);
		const struct tpu_link_stats *st = tpu_link_stats(l);
		uint64_t last = ~0ull, quiet = 0;

		for (uint64_t c = 0;; c++) {
			uint64_t a = st->mrd + st->mwr + st->msi + st->hcpl_beats + st->dreq_beats +
				     st->mmio_reads + st->mmio_writes;
			FUZZ_CHECK(c < 4000000, "sim never became idle");
			tpu_sim_cycle(W.vsim.sim);
			if (a != last || !tpu_link_idle(l)) {
				last = a;
				quiet = 0;
				continue;
			}
			if (++quiet >= (W.vsim.fetched > W.vsim.posted ? 4096u : 48u))
				break;
		}
		FUZZ_CHECK(tpu_sim_assert_failures(W.vsim.sim) == 0, "RTL assertion failed");
		FUZZ_CHECK(st->protocol_errors == 0, "link protocol error");
	}
	(void)golden_run(W.gold.g, UINT_MAX);
}

static void compare(void)
{
	static const uint32_t regs[] = { TPU_REG_CSTS, TPU_REG_GSTAT, TPU_REG_INT_STATUS,
					 TPU_REG_ERRLOG0, TPU_REG_ERRLOG1, TPU_REG_ERRLOG_ADDR_LO,
					 TPU_REG_ERRLOG_ADDR_HI, TPU_REG_Q_STATUS(0),
					 TPU_REG_Q_CQ_TAIL(0), TPU_REG_PERF_MXU_BUSY_LO,
					 TPU_REG_PERF_MACS_LO, TPU_REG_PERF_DMA_RD_LO,
					 TPU_REG_PERF_DMA_WR_LO, TPU_REG_PERF_CMDS,
					 TPU_REG_PERF_ERRORS };
	size_t rb = (size_t)NB * (BUFB + GUARD) + GUARD;

	for (size_t i = 0; i < rb; i++) {
		bool guard = (i % (BUFB + GUARD)) < GUARD;
		FUZZ_CHECK(!guard || W.gold.region[i] == CANARY, "golden: canary at +%zu is 0x%02x", i,
			   W.gold.region[i]);
	}
	if (!W.lockstep)
		return;
	FUZZ_CHECK(!memcmp(W.gold.region, W.vsim.region, rb), "data buffers differ (sim, golden)");
	FUZZ_CHECK(!memcmp(W.gold.cq, W.vsim.cq, QD * TPU_CQE_BYTES), "CQs differ (sim, golden)");
	for (unsigned i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		uint32_t v = sim_rd(regs[i]), g = golden_mmio_read(W.gold.g, regs[i]);
		FUZZ_CHECK(v == g, "register 0x%03x: sim 0x%08x, golden 0x%08x", regs[i], v, g);
	}
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Completions in order, each of the oldest outstanding command; the CQ head doorbell. */
static void reap(void)
{
	for (;;) {
		const uint8_t *e = W.gold.cq + (size_t)W.cq_head * TPU_CQE_BYTES;
		uint32_t dw3 = get32(e + 12);

		if (((dw3 >> TPU_CQE_PHASE_SHIFT) & 1u) != W.phase)
			break;
		FUZZ_CHECK(W.nout > 0 && W.rung > 0, "a completion without a command");
		FUZZ_CHECK((dw3 & TPU_CQE_CID_MASK) == W.cids[0], "completion of CID %u, expected %u",
			   dw3 & TPU_CQE_CID_MASK, W.cids[0]);
		memmove(W.cids, W.cids + 1, (W.nout - 1) * sizeof(W.cids[0]));
		W.nout--;
		W.rung--;
		if (++W.cq_head == QD) {
			W.cq_head = 0;
			W.phase ^= 1u;
		}
		wr(TPU_REG_CQ_HEAD_DB(0), W.cq_head);
	}
}

static void step(void)
{
	settle();
	compare();
	reap();
}

static void push(const uint32_t dw[16])
{
	uint32_t d[16];

	if (W.nout + 1 >= QD)
		return; /* the host keeps a slot free, as the driver does */
	memcpy(d, dw, sizeof(d));
	d[TPU_SQE_CID_DW] = (d[TPU_SQE_CID_DW] & ~(TPU_SQE_CID_MASK << TPU_SQE_CID_SHIFT)) |
			    (uint32_t)W.next_cid << TPU_SQE_CID_SHIFT;
	d[TPU_SQE_USER_TAG_DW] = W.next_cid;
	W.cids[W.nout++] = W.next_cid++;
	for (unsigned i = 0; i < 16; i++)
		for (unsigned b = 0; b < 4; b++) {
			uint8_t v = (uint8_t)(d[i] >> (8 * b));
			W.gold.sq[(size_t)W.sq_tail * TPU_SQE_BYTES + 4 * i + b] = v;
			if (W.lockstep)
				W.vsim.sq[(size_t)W.sq_tail * TPU_SQE_BYTES + 4 * i + b] = v;
		}
	W.sq_tail = (W.sq_tail + 1) % QD;
}

static void ring(void)
{
	W.rung = W.nout;
	wr(TPU_REG_SQ_TAIL_DB(0), W.sq_tail);
}

/* Wait on the sim for CSTS.WPEND = 0 (golden applies a window write at once). */
static void wait_applied(void)
{
	for (unsigned i = 0; W.lockstep && i < 100000; i++)
		if (!(sim_rd(TPU_REG_CSTS) & TPU_CSTS_WPEND_MASK))
			return;
	FUZZ_CHECK(!W.lockstep, "CSTS.WPEND never cleared");
}

/* Window w as tpu_window_set programs it: VALID off (the old window may still be in use until
 * WPEND reads 0), then base, limit, permissions. */
static void program_window(unsigned w, const struct win *nw)
{
	memcpy(W.old, W.cur, sizeof(W.old));
	W.cur[w].perm = 0;
	W.pending = true;
	wr(TPU_REG_WIN_PERM(w), 0);
	wait_applied();
	W.pending = false;
	wr(TPU_REG_WIN_BASE_LO(w), (uint32_t)nw->base);
	wr(TPU_REG_WIN_BASE_HI(w), (uint32_t)(nw->base >> 32));
	wr(TPU_REG_WIN_LIMIT_LO(w), (uint32_t)nw->limit);
	wr(TPU_REG_WIN_LIMIT_HI(w), (uint32_t)(nw->limit >> 32));
	memcpy(W.old, W.cur, sizeof(W.old));
	W.cur[w] = *nw;
	W.pending = true;
	wr(TPU_REG_WIN_PERM(w), nw->perm);
	wait_applied();
	W.pending = false;
}

/* ---------------------------------------------------------------- set-up */

static void side_alloc(struct side *s, const char *name)
{
	void *p;
	uint64_t iova;

	FUZZ_CHECK(hostmem_create(ARENA, IOVA_BASE, &s->hm) == 0, "hostmem");
	FUZZ_CHECK(hostmem_alloc(s->hm, QD * TPU_SQE_BYTES, 4096, &iova, &p) == 0, "SQ");
	W.sq_iova = iova;
	s->sq = p;
	FUZZ_CHECK(hostmem_alloc(s->hm, QD * TPU_CQE_BYTES, 4096, &iova, &p) == 0, "CQ");
	W.cq_iova = iova;
	s->cq = p;
	FUZZ_CHECK(hostmem_alloc(s->hm, (size_t)NB * (BUFB + GUARD) + GUARD, 4096, &iova, &p) == 0,
		   "buffers");
	W.region_iova = iova;
	s->region = p;
	hostmem_set_hook(s->hm, hook, (void *)name);
}

static void fill_region(uint8_t *r, uint64_t seed)
{
	for (size_t i = 0; i < (size_t)NB * (BUFB + GUARD) + GUARD; i++)
		r[i] = (i % (BUFB + GUARD)) < GUARD ? CANARY
						    : (uint8_t)((i * 2654435761u + seed) >> 13);
}

static void enable(void)
{
	wr(TPU_REG_SQ_BASE_LO(0), (uint32_t)W.sq_iova);
	wr(TPU_REG_SQ_BASE_HI(0), (uint32_t)(W.sq_iova >> 32));
	wr(TPU_REG_SQ_SIZE(0), QD);
	wr(TPU_REG_CQ_BASE_LO(0), (uint32_t)W.cq_iova);
	wr(TPU_REG_CQ_BASE_HI(0), (uint32_t)(W.cq_iova >> 32));
	wr(TPU_REG_CQ_SIZE(0), QD);
	memset(W.gold.cq, 0, QD * TPU_CQE_BYTES);
	if (W.lockstep)
		memset(W.vsim.cq, 0, QD * TPU_CQE_BYTES);
	W.sq_tail = W.cq_head = W.rung = W.nout = 0;
	W.phase = 1;
	wr(TPU_REG_CC, TPU_CC_EN_MASK);
	for (unsigned i = 0; W.lockstep && i < 1000; i++)
		if (sim_rd(TPU_REG_CSTS) & TPU_CSTS_RDY_MASK)
			break;
}

static void reset(void)
{
	wr(TPU_REG_RESET, TPU_RESET_MAGIC);
	for (unsigned i = 0; W.lockstep && i < 100000; i++)
		if (!(sim_rd(TPU_REG_CSTS) & TPU_CSTS_RDY_MASK))
			break;
	W.vsim.fetched = W.vsim.posted; /* what the reset abandoned gets no CQE */
	for (unsigned w = 0; w < NWIN; w++) {
		const struct win *t = &W.cur[w];
		wr(TPU_REG_WIN_BASE_LO(w), (uint32_t)t->base);
		wr(TPU_REG_WIN_BASE_HI(w), (uint32_t)(t->base >> 32));
		wr(TPU_REG_WIN_LIMIT_LO(w), (uint32_t)t->limit);
		wr(TPU_REG_WIN_LIMIT_HI(w), (uint32_t)(t->limit >> 32));
		wr(TPU_REG_WIN_PERM(w), t->perm);
	}
	wait_applied();
	enable();
}

static void sqe_dma(uint32_t d[16], uint64_t addr, uint32_t rows, uint32_t row_bytes,
		    uint32_t stride)
{
	d[TPU_SQE_HOST_ADDR_LO_DW] = (uint32_t)addr;
	d[TPU_SQE_HOST_ADDR_HI_DW] = (uint32_t)(addr >> 32);
	d[TPU_SQE_ROWS_DW] = rows;
	d[TPU_SQE_STRIDE_DW] = stride;
	d[TPU_SQE_LENGTH_DW] = rows ? (rows - 1) * (stride ? stride : row_bytes) + row_bytes : 0;
}

/* RTL RAMs start random, the golden model's at zero: zero UB, ACC and the parameters on both
 * (as tests/golden_fixture.c does), then RESET. Buffer 0 holds zeros for it meanwhile. */
static void zero_rams(void)
{
	uint32_t d[16];
	uint64_t z = buf_iova(0);

	memset(W.gold.region + GUARD, 0, BUFB);
	if (W.lockstep)
		memset(W.vsim.region + GUARD, 0, BUFB);
	memset(d, 0, sizeof(d));
	d[0] = TPU_OP_READ_HOST;
	sqe_dma(d, z, 64, 8, 0);
	d[TPU_SQE_COLS_DW] = 8;
	push(d);
	memset(d, 0, sizeof(d));
	d[0] = TPU_OP_LOAD_WEIGHTS;
	sqe_dma(d, z, 8, 8, 0);
	d[TPU_SQE_COLS_DW] = 8;
	push(d);
	memset(d, 0, sizeof(d));
	d[0] = TPU_OP_MATMUL;
	d[TPU_SQE_ROWS_DW] = 32;
	d[TPU_SQE_OP0_DW] = TPU_MATMUL_POP;
	push(d);
	for (uint32_t k = TPU_PARAM_BIAS; k <= TPU_PARAM_LUT; k++) {
		memset(d, 0, sizeof(d));
		d[0] = TPU_OP_LOAD_PARAMS;
		d[TPU_SQE_HOST_ADDR_LO_DW] = (uint32_t)z;
		d[TPU_SQE_HOST_ADDR_HI_DW] = (uint32_t)(z >> 32);
		d[TPU_SQE_OP0_DW] = k;
		d[TPU_SQE_ROWS_DW] = 1;
		d[TPU_SQE_COLS_DW] = k == TPU_PARAM_LUT ? TPU_LUT_ENTRIES : 8;
		d[TPU_SQE_LENGTH_DW] = k == TPU_PARAM_LUT ? TPU_LUT_ENTRIES : 32;
		push(d);
	}
	ring();
	step();
	FUZZ_CHECK(W.nout == 0, "the zeroing commands did not complete");
	reset();
}

static bool world_init(uint64_t seed)
{
	static const struct tpu_sim_model *m;
	static bool looked;
	struct golden_config cfg;
	struct golden_dma_port port;

	if (!looked) {
		m = getenv("TPU_FUZZ_GOLDEN_ONLY") || getenv("TPU_FUZZ_BF16") ?
			    NULL : tpu_sim_model_named("s8");
		looked = true;
	}
	memset(&W, 0, sizeof(W));
	W.lockstep = m != NULL;
	golden_config_default(&cfg);
	cfg.array_n = 8;
	cfg.ub_rows = 64;
	cfg.acc_rows = 32;
	cfg.fifo_tiles = 2;
	cfg.num_queues = 2;
	cfg.num_windows = NWIN;
	W.bf16 = !W.lockstep && getenv("TPU_FUZZ_BF16");
	cfg.bf16 = W.bf16;
	side_alloc(&W.gold, "golden");
	port = (struct golden_dma_port){ .ctx = W.gold.hm, .read = hostmem_dma_read,
					 .write = hostmem_dma_write };
	FUZZ_CHECK(golden_create(&cfg, &port, &W.gold.g) == 0, "golden_create");
	fill_region(W.gold.region, seed);
	if (W.lockstep) {
		struct tpu_link_cfg lc;
		struct tpu_link_mem mem = { .ctx = &W, .read = sim_read, .write = sim_write };

		side_alloc(&W.vsim, "sim");
		fill_region(W.vsim.region, seed);
		tpu_link_cfg_default(&lc);
		lc.seed = seed;
		lc.addr_base = IOVA_BASE;
		lc.latency_ns = 2u + (uint32_t)(seed % 60u);
		lc.bw_d2h = lc.bw_h2d = 0;
		FUZZ_CHECK(tpu_sim_create(m, &lc, &mem, seed, NULL, &W.vsim.sim) == 0,
			   "tpu_sim_create");
	}
	/* window 0: the whole buffer region (guards included) while the RAMs are zeroed */
	W.cur[0] = (struct win){ W.region_iova, W.region_iova + (uint64_t)NB * (BUFB + GUARD) +
							       GUARD - 1,
				 TPU_WIN_PERM_VALID_MASK | TPU_WIN_PERM_R_MASK |
					 TPU_WIN_PERM_W_MASK };
	reset();
	zero_rams();
	fill_region(W.gold.region, seed);
	if (W.lockstep)
		fill_region(W.vsim.region, seed);
	/* then every window inside one buffer, guards outside all of them */
	for (unsigned w = 0; w < NWIN; w++) {
		unsigned b = w % NB;
		struct win nw = { buf_iova(b), buf_iova(b) + BUFB - 1,
				  TPU_WIN_PERM_VALID_MASK | TPU_WIN_PERM_R_MASK |
					  (w != 1 ? TPU_WIN_PERM_W_MASK : 0) };
		program_window(w, w < NB ? &nw : &(struct win){ 0, 0, 0 });
	}
	return true;
}

static void world_fini(void)
{
	if (W.vsim.sim)
		tpu_sim_destroy(W.vsim.sim);
	golden_destroy(W.gold.g);
	if (W.vsim.hm)
		hostmem_destroy(W.vsim.hm);
	hostmem_destroy(W.gold.hm);
}

/* ---------------------------------------------------------------- the program */

/* A random command: mostly well-formed enough to reach the DMA and window checks, often not. */
static void random_sqe(struct fuzz_in *in, uint32_t d[16])
{
	static const uint8_t ops[] = { TPU_OP_NOP,	    TPU_OP_READ_HOST, TPU_OP_LOAD_WEIGHTS,
				       TPU_OP_LOAD_PARAMS, TPU_OP_MATMUL,    TPU_OP_ACTIVATE,
				       TPU_OP_WRITE_HOST,  TPU_OP_FENCE,     TPU_OP_IDENTIFY,
				       TPU_OP_STREAM_MATMUL, 0x3F };
	uint8_t op = ops[fuzz_u8(in) % sizeof(ops)], f = fuzz_u8(in);
	unsigned b = fuzz_u8(in) % NB;
	/* inside the buffer mostly; up to half a guard before or after it */
	uint64_t addr = buf_iova(b) - GUARD / 2 + (fuzz_u32(in) % (BUFB + GUARD));
	uint32_t rows = fuzz_u8(in) % 10, cols = fuzz_u8(in) % 10, sm = fuzz_u8(in);
	uint32_t stride = sm < 128 ? 0 : sm < 192 ? cols + (sm & 15) : 4 * cols;
	uint32_t op0 = fuzz_u8(in) % (W.bf16 ? 16 : 8), acc = op == TPU_OP_WRITE_HOST && (op0 & 1);
	uint32_t es = W.bf16 && (f & TPU_SQE_FLAG_BF16) ? 2 : 1; /* bytes per UB element */
	uint32_t kinds = W.bf16 ? TPU_PARAM_KIND_COUNT : 6; /* (int8: kind 5 as an unknown one) */

	memset(d, 0, 16 * sizeof(*d));
	d[0] = op | (uint32_t)(f & (f & 0x80 ? 0xFF : TPU_SQE_FLAGS_VALID)) << TPU_SQE_FLAGS_SHIFT;
	sqe_dma(d, addr, rows, acc ? 4 * cols : es * cols, stride);
	d[TPU_SQE_COLS_DW] = cols;
	d[TPU_SQE_LOCAL_ADDR_DW] = fuzz_u8(in) % 72;
	d[TPU_SQE_LOCAL_ADDR2_DW] = fuzz_u8(in) % 40;
	d[TPU_SQE_OP0_DW] = op0;
	if (op == TPU_OP_LOAD_PARAMS) {
		d[TPU_SQE_OP0_DW] = op0 % kinds;
		d[TPU_SQE_ROWS_DW] = 1;
		d[TPU_SQE_COLS_DW] = op0 % kinds == TPU_PARAM_LUT ? TPU_LUT_ENTRIES : cols;
		d[TPU_SQE_LENGTH_DW] = op0 % kinds == TPU_PARAM_LUT ? TPU_LUT_ENTRIES : 4 * cols;
		d[TPU_SQE_OP1_DW] = (uint32_t)(int8_t)fuzz_u8(in);
		d[TPU_SQE_OP2_DW] = (uint32_t)-128;
		d[TPU_SQE_OP3_DW] = 127;
		if (op0 % kinds == TPU_PARAM_FCLAMP) { /* no DMA: fp32 limits in OP2, OP3 */
			memset(d + TPU_SQE_HOST_ADDR_LO_DW, 0,
			       (TPU_SQE_COLS_DW - TPU_SQE_HOST_ADDR_LO_DW + 1) * sizeof(*d));
			d[TPU_SQE_OP1_DW] = 0;
			d[TPU_SQE_OP2_DW] = fuzz_u32(in);
			d[TPU_SQE_OP3_DW] = fuzz_u8(in) & 1 ? d[TPU_SQE_OP2_DW] ^ 0x80000000u
							    : fuzz_u32(in);
		}
	} else if (op == TPU_OP_IDENTIFY) {
		if (f & 4) { /* page-aligned in its buffer: can pass the window check */
			d[TPU_SQE_HOST_ADDR_LO_DW] = (uint32_t)buf_iova(b);
			d[TPU_SQE_HOST_ADDR_HI_DW] = (uint32_t)(buf_iova(b) >> 32);
		}
		d[TPU_SQE_LENGTH_DW] = TPU_IDENTIFY_BYTES;
	} else if (op == TPU_OP_FENCE) {
		d[TPU_SQE_LENGTH_DW] = f & 8 ? 8 : 0;
		d[TPU_SQE_OP1_DW] = fuzz_u32(in);
	} else if (op == TPU_OP_STREAM_MATMUL) {
		d[TPU_SQE_OP1_DW] = fuzz_u8(in) % 3;
		d[TPU_SQE_OP2_DW] = fuzz_u8(in) % 3;
	}
	if ((f & 0x70) == 0x70) /* a field of garbage */
		d[1 + fuzz_u8(in) % 15] = fuzz_u32(in);
}

static void random_window(struct fuzz_in *in)
{
	unsigned w = fuzz_u8(in) % NWIN, b = fuzz_u8(in) % NB;
	uint32_t lo = fuzz_u32(in) % BUFB, hi = lo + fuzz_u32(in) % (BUFB - lo), p = fuzz_u8(in);
	struct win nw = { buf_iova(b) + lo, buf_iova(b) + hi, 0 };

	if (p & 4) /* a whole page at times, so that an IDENTIFY can pass */
		nw = (struct win){ buf_iova(b), buf_iova(b) + BUFB - 1, 0 };
	if (p & 1)
		nw.perm |= TPU_WIN_PERM_VALID_MASK;
	if (p & 2)
		nw.perm |= TPU_WIN_PERM_R_MASK;
	if (p & 8)
		nw.perm |= TPU_WIN_PERM_W_MASK;
	program_window(w, &nw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size, 0 };
	uint64_t seed = 0x9E3779B97F4A7C15ull;
	uint32_t d[16];

	for (size_t i = 0; i < size && i < 8; i++)
		seed = seed * 31 + data[i];
	world_init(seed);
	for (unsigned n = 0; n < MAX_OPS && fuzz_more(&in); n++) {
		switch (fuzz_u8(&in) % 8) {
		case 0:
		case 1:
		case 2:
			random_sqe(&in, d);
			push(d);
			break;
		case 3:
			ring();
			break;
		case 4:
			random_window(&in);
			break;
		case 5:
			if (W.lockstep)
				(void)tpu_sim_advance(W.vsim.sim, 4u * fuzz_u8(&in));
			break;
		case 6:
			step();
			break;
		case 7:
			if (fuzz_u8(&in) < 32) { /* a reset, from a settled state */
				step();
				reset();
			}
			break;
		}
	}
	/* every command that was pushed completes exactly once */
	ring();
	for (unsigned i = 0; i < 8 && W.nout; i++)
		step();
	FUZZ_CHECK(W.nout == 0, "%u commands without a completion", W.nout);
	world_fini();
	return 0;
}
