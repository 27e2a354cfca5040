/* Golden-model test fixture; see golden_fixture.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "golden_fixture.h"
#include "harness.h"

/* The backend of the next gfx_setup*: set by the gfx_use_* checked fixtures in the test's
 * process (a per-test setting Check cannot pass as an argument). */
static enum gfx_backend gfx_be = GFX_GOLDEN;
static bool gfx_bf16_dev; /* golden devices with the bf16 mode (gfx_use_golden_bf16) */

void gfx_use_golden(void)
{
	gfx_be = GFX_GOLDEN;
	gfx_bf16_dev = false;
}

void gfx_use_golden_bf16(void)
{
	gfx_be = GFX_GOLDEN;
	gfx_bf16_dev = true;
}

void gfx_use_sim(void)
{
	gfx_be = GFX_SIM;
	gfx_bf16_dev = false;
}

enum gfx_backend gfx_backend(void)
{
	return gfx_be;
}

/* Link latency of the next gfx_setup* on sim (0: the fast default); same reason as gfx_be. */
static uint32_t gfx_lat_ns;

void gfx_sim_latency(uint32_t ns)
{
	gfx_lat_ns = ns;
}

void gfx_config_small(struct golden_config *cfg)
{
	golden_config_default(cfg);
	cfg->array_n = 8;
	cfg->ub_rows = 64;
	cfg->acc_rows = 32;
	cfg->fifo_tiles = 2;
	cfg->num_queues = 2;
	cfg->num_windows = 4;
}

static void model_config(const struct tpu_sim_model *m, struct golden_config *c)
{
	golden_config_default(c);
	c->array_n = m->array_n;
	c->ub_rows = m->ub_rows;
	c->acc_rows = m->acc_rows;
	c->fifo_tiles = m->fifo_tiles;
	c->num_queues = m->num_queues;
	c->num_windows = m->num_windows;
	c->max_queue_entries = m->max_queue_entries;
}

/* The Verilated model for cfg: an exact match, else a compatible one (see gfx_backend_has). */
static const struct tpu_sim_model *sim_model_for(const struct golden_config *cfg)
{
	static const char *const names[] = { "s8", "n4", "n8", "n16", "n32" };
	const struct tpu_sim_model *fit = NULL;

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct tpu_sim_model *m = tpu_sim_model_named(names[i]);
		struct golden_config c;

		if (!m)
			continue;
		model_config(m, &c);
		if (!memcmp(&c, cfg, sizeof(c)))
			return m;
		if (!fit && c.array_n == cfg->array_n && c.fifo_tiles == cfg->fifo_tiles &&
		    c.num_queues == cfg->num_queues && c.num_windows == cfg->num_windows &&
		    c.ub_rows >= cfg->ub_rows && c.acc_rows >= cfg->acc_rows &&
		    c.max_queue_entries >= cfg->max_queue_entries)
			fit = m;
	}
	return fit;
}

bool gfx_backend_has(enum gfx_backend be, const struct golden_config *cfg)
{
	struct golden_config c;

	if (be == GFX_GOLDEN)
		return true;
	if (cfg)
		c = *cfg;
	else
		gfx_config_small(&c);
	if (sim_model_for(&c))
		return true;
	fprintf(stderr, "note: no Verilated model for N=%u UB=%u ACC=%u tiles=%u: sim variant "
			"of a golden test skipped\n", c.array_n, c.ub_rows, c.acc_rows, c.fifo_tiles);
	return false;
}

static bool fail_hit(struct gfx *f, enum hostmem_dir dir, uint64_t iova, size_t len)
{
	return f->fail_on && (f->fail_any_dir || dir == f->fail_dir) && len &&
	       iova <= f->fail_hi && iova + (len - 1) >= f->fail_lo;
}

static int hook(void *ctx, enum hostmem_dir dir, uint64_t iova, size_t len)
{
	struct gfx *f = ctx;

	if (f->record && f->nlog < GFX_MAX_LOG) {
		f->log[f->nlog].dir = dir;
		f->log[f->nlog].iova = iova;
		f->log[f->nlog].len = len;
		f->log[f->nlog].first_word = 0;
		f->nlog++;
	}
	return fail_hit(f, dir, iova, len);
}

/* The shadow's memory refuses what the test's memory refuses; it records nothing. */
static int shadow_hook(void *ctx, enum hostmem_dir dir, uint64_t iova, size_t len)
{
	return fail_hit(ctx, dir, iova, len);
}

/* Wraps the hostmem write so that the log also shows what a write carried (MSI data). */
static int dma_write(void *ctx, uint64_t iova, const void *src, size_t len)
{
	struct gfx *f = ctx;
	unsigned before = f->nlog;
	int err = hostmem_dma_write(f->hm, iova, src, len);

	if (f->nlog > before && len >= 4) {
		const uint8_t *p = src;

		f->log[f->nlog - 1].first_word = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
						 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	}
	return err;
}

static int dma_read(void *ctx, uint64_t iova, void *dst, size_t len)
{
	struct gfx *f = ctx;

	return hostmem_dma_read(f->hm, iova, dst, len);
}

/* The sim link's view of host memory: dma_read/dma_write, counting SQE fetches and CQE posts
 * (the PHASE dword) so that a settle knows whether a command is still executing. */
static int sim_read(void *ctx, uint64_t iova, void *dst, size_t len)
{
	struct gfx *f = ctx;
	int err = dma_read(ctx, iova, dst, len);

	for (unsigned q = 0; !err && q < TPU_NUM_QUEUES_MAX; q++) {
		const struct gfx_queue *gq = &f->q[q];

		if (gq->sq && iova >= gq->sq_iova &&
		    iova - gq->sq_iova < (uint64_t)gq->sq_size * TPU_SQE_BYTES)
			f->sim_fetched += len / TPU_SQE_BYTES;
	}
	return err;
}

static int sim_write(void *ctx, uint64_t iova, const void *src, size_t len)
{
	struct gfx *f = ctx;
	bool whole_cqe = false;
	int err;

	for (unsigned q = 0; q < TPU_NUM_QUEUES_MAX; q++) {
		const struct gfx_queue *gq = &f->q[q];
		uint64_t end = gq->cq_iova + (uint64_t)gq->cq_size * TPU_CQE_BYTES;

		if (!gq->cq || iova < gq->cq_iova || iova >= end)
			continue;
		for (uint64_t a = iova; a < iova + len; a++)
			if ((a - gq->cq_iova) % TPU_CQE_BYTES == 15)
				f->sim_posted++;
		whole_cqe = len == TPU_CQE_BYTES && (iova - gq->cq_iova) % TPU_CQE_BYTES == 0;
	}
	/* The RTL posts a CQE as one 16-byte write, the golden model as 12 bytes and then the
	 * PHASE dword (spec §4: PHASE becomes visible last; one posted write lands whole). The log
	 * shows both the golden model's way, so that the suites count accesses alike; the bytes
	 * themselves are compared by the settle. */
	if (!whole_cqe)
		return dma_write(ctx, iova, src, len);
	err = dma_write(ctx, iova, src, 12);
	if (dma_write(ctx, iova + 12, (const uint8_t *)src + 12, 4) && !err)
		err = -EIO;
	return err;
}

static int shadow_read(void *ctx, uint64_t iova, void *dst, size_t len)
{
	return hostmem_dma_read(((struct gfx *)ctx)->shm, iova, dst, len);
}

static int shadow_write(void *ctx, uint64_t iova, const void *src, size_t len)
{
	return hostmem_dma_write(((struct gfx *)ctx)->shm, iova, src, len);
}

/* ------------------------------------------------------------------ sim lockstep */

/* Host-side changes since the last settle (SQEs, data, zeroed CQs) reach the shadow's memory:
 * at this point the two memories differ only by them, as the last settle compared them. */
static void shadow_sync(struct gfx *f)
{
	for (unsigned i = 0; i < f->nbufs; i++)
		memcpy(f->bufs[i].shadow, f->bufs[i].p, f->bufs[i].len);
}

static uint64_t link_activity(const struct tpu_link_stats *st)
{
	return st->mrd + st->mwr + st->msi + st->hcpl_beats + st->dreq_beats + st->mmio_reads +
	       st->mmio_writes;
}

/* Quiet cycles that end a settle: with every fetched command completed, a few dozen cycles
 * without link traffic cover the gaps between a doorbell's arrival and the next fetch, and a
 * CQE and its MSI. Otherwise a command may still be executing without link traffic (MATMUL,
 * ACTIVATE: the suites use at most a few hundred rows), or SQEs were fetched ahead of a full CQ
 * or an abandoning disable: a few thousand cycles. */
#define SIM_QUIET_IDLE 48u
#define SIM_QUIET_BUSY 4096u
#define SIM_SETTLE_MAX 2000000ull

static void sim_settle(struct gfx *f)
{
	struct tpu_link *l = tpu_sim_link(f->sim);
	const struct tpu_link_stats *st = tpu_link_stats(l);
	uint64_t last = link_activity(st), quiet = 0, cycles = 0;

	for (;;) {
		uint64_t a;

		tpu_sim_cycle(f->sim);
		a = link_activity(st);
		ck_assert_msg(++cycles < SIM_SETTLE_MAX,
			      "sim device never became idle (link %s, mrd %llu mwr %llu)",
			      tpu_link_idle(l) ? "idle" : "busy", (unsigned long long)st->mrd,
			      (unsigned long long)st->mwr);
		if (a != last || !tpu_link_idle(l)) {
			last = a;
			quiet = 0;
			continue;
		}
		if (++quiet >= (f->sim_fetched > f->sim_posted ? SIM_QUIET_BUSY : SIM_QUIET_IDLE))
			break;
	}
	/* (CQEs posted since the last settle, also while a test clocked the device itself) */
	f->sim_done += (unsigned)(f->sim_posted - f->sim_counted);
	f->sim_counted = f->sim_posted;
	ck_assert_uint_eq(tpu_sim_assert_failures(f->sim), 0);
	ck_assert_uint_eq(st->protocol_errors, 0);
}

/* Settle both devices (the caller synced the shadow's memory before the MMIO write that started
 * the work) and compare every live buffer byte for byte and the commands each completed. */
static void lockstep_settle(struct gfx *f)
{
	unsigned k, done = 0;

	sim_settle(f);
	while ((k = golden_run(f->g, 1u << 20)) != 0)
		done += k;
	f->golden_done += done;
	ck_assert_msg(f->golden_done == f->sim_done,
		      "golden completed %u commands, sim %u", f->golden_done, f->sim_done);
	for (unsigned i = 0; i < f->nbufs; i++) {
		const struct gfx_buf *b = &f->bufs[i];

		if (memcmp(b->p, b->shadow, b->len)) {
			size_t o = 0;

			while (b->p[o] == b->shadow[o])
				o++;
			ck_abort_msg("host memory differs at iova 0x%llx (buffer 0x%llx + %zu): "
				     "sim 0x%02x, golden 0x%02x",
				     (unsigned long long)(b->iova + o), (unsigned long long)b->iova,
				     o, b->p[o], b->shadow[o]);
		}
	}
}
/* True for writes that may start device activity (everything but window and queue
 * configuration). A window write only waits for the commands before it (spec §5): the sim
 * device holds it, later writes queue behind it, and golden runs those commands inside its
 * write; the next settle compares. (A settle here would also sync the shadow from memory the
 * sim device may already have written.) */
static bool wr_settles(uint32_t off)
{
	return off < 0x100 || off >= 0x400;
}

static bool wr_window(const struct gfx *f, uint32_t off)
{
	return off >= 0x200 && off < 0x200 + f->cfg.num_windows * 0x20u;
}

/* PERF_CYCLES is each backend's own (spec §2): never compared. */
static bool rd_compared(uint32_t off)
{
	return off != TPU_REG_PERF_CYCLES_LO && off != TPU_REG_PERF_CYCLES_HI;
}

uint32_t gfx_rd(struct gfx *f, uint32_t off)
{
	uint32_t v, gv;

	if (f->be == GFX_GOLDEN)
		return golden_mmio_read(f->g, off);
	v = tpu_sim_mmio_read(f->sim, off);
	gv = golden_mmio_read(f->g, off);
	if (rd_compared(off))
		ck_assert_msg(v == gv, "register 0x%03x: sim 0x%08x, golden 0x%08x", off, v, gv);
	return v;
}

void gfx_wr(struct gfx *f, uint32_t off, uint32_t val)
{
	bool settle;

	/* the shadow's memory catches up before its device can touch it (an unmask's MSI) */
	settle = f->be == GFX_SIM && wr_settles(off);
	if (settle)
		shadow_sync(f);
	/* a window write first runs every command the device can fetch (spec §5): golden does
	 * that inside golden_mmio_write; count them by its PERF_CMDS (a read has no effect) */
	if (wr_window(f, off)) {
		uint32_t before = golden_mmio_read(f->g, TPU_REG_PERF_CMDS);
		golden_mmio_write(f->g, off, val);
		uint32_t k = golden_mmio_read(f->g, TPU_REG_PERF_CMDS) - before;
		if (f->be == GFX_GOLDEN)
			f->golden_early += k;
		else
			f->golden_done += k;
	} else {
		golden_mmio_write(f->g, off, val);
	}
	if (f->be == GFX_GOLDEN)
		return;
	tpu_sim_mmio_write(f->sim, off, val);
	if (!settle || f->hold)
		return;
	lockstep_settle(f);
	/* commands a disable or reset abandoned get no CQE (spec §3) */
	if (off == TPU_REG_CC || off == TPU_REG_RESET)
		f->sim_fetched = f->sim_posted;
}

void gfx_hold(struct gfx *f, bool on)
{
	f->hold = on;
	if (!on && f->be == GFX_SIM)
		lockstep_settle(f);
}

unsigned gfx_run(struct gfx *f, unsigned max_cmds)
{
	unsigned n;

	if (f->be == GFX_GOLDEN) {
		n = golden_run(f->g, max_cmds) + f->golden_early;
		f->golden_early = 0;
		return n;
	}
	shadow_sync(f);
	lockstep_settle(f);
	n = f->sim_done;
	f->sim_done = f->golden_done = 0;
	return n;
}

static void buf_add(struct gfx *f, uint64_t iova, size_t len, void *p, void *shadow)
{
	ck_assert_uint_lt(f->nbufs, GFX_MAX_BUFS);
	f->bufs[f->nbufs++] = (struct gfx_buf){ iova, len, p, shadow };
}

void *gfx_alloc(struct gfx *f, size_t len, uint64_t *iova)
{
	void *p = NULL, *sp = NULL;
	uint64_t si = 0;

	ck_assert_int_eq(hostmem_alloc(f->hm, len, 64, iova, &p), 0);
	if (f->be == GFX_SIM) {
		ck_assert_int_eq(hostmem_alloc(f->shm, len, 64, &si, &sp), 0);
		ck_assert_uint_eq(si, *iova); /* same first-fit allocator, same history */
		buf_add(f, *iova, len, p, sp);
	}
	return p;
}

void gfx_free(struct gfx *f, uint64_t iova)
{
	ck_assert_int_eq(hostmem_free(f->hm, iova), 0);
	if (f->be != GFX_SIM)
		return;
	ck_assert_int_eq(hostmem_free(f->shm, iova), 0);
	for (unsigned i = 0; i < f->nbufs; i++)
		if (f->bufs[i].iova == iova) {
			f->bufs[i] = f->bufs[--f->nbufs];
			break;
		}
}

/* RTL RAMs start random; the golden model's start at zero (spec §3 item 1 leaves them
 * unspecified). Zero UB (READ_HOST of zero rows), ACC (MATMUL of zero UB rows with a zero
 * tile) and the parameter vectors and LUT on both devices, then RESET, which restores every specified power-on state and keeps
 * the RAMs. Everything allocated here is freed again, so the IOVA layout the test sees is the
 * one of a fresh host memory. */
static void zero_rams(struct gfx *f, const struct golden_config *want)
{
	/* only the rows of the configuration the test asked for: it uses no others */
	uint32_t n = f->cfg.array_n, ub = want->ub_rows, acc = want->acc_rows;
	uint32_t step = ub < 256 ? ub : 256;
	uint64_t zero;
	struct gfx_sqe s;

	gfx_alloc(f, (size_t)ub * n, &zero);
	gfx_window(f, 0, GFX_IOVA_BASE, GFX_IOVA_BASE + GFX_ARENA_SIZE - 1,
		   TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK | TPU_WIN_PERM_VALID_MASK);
	gfx_queue_setup(f, 0, 4, 4);
	gfx_enable(f);
	s = gfx_read_host(zero, ub, n, 0, 0);
	gfx_ok(f, &s);
	s = gfx_load_weights(zero, n, n, 0, false);
	gfx_ok(f, &s);
	for (uint32_t done = 0; done < acc; done += step) {
		/* the popped tile stays active: MATMULs of at most 256 rows (settle's quiet time) */
		uint32_t rows = acc - done < step ? acc - done : step;

		s = gfx_matmul(0, done, rows, done ? 0 : TPU_MATMUL_POP);
		gfx_ok(f, &s);
	}
	/* parameter memory too (the spec leaves it unspecified as well) */
	s = gfx_load_vec(TPU_PARAM_BIAS, zero, n, 0);
	gfx_ok(f, &s);
	s = gfx_load_vec(TPU_PARAM_MULT, zero, n, 0);
	gfx_ok(f, &s);
	s = gfx_load_vec(TPU_PARAM_SHIFT, zero, n, 0);
	gfx_ok(f, &s);
	s = gfx_load_lut(zero);
	gfx_ok(f, &s);
	gfx_wr(f, TPU_REG_RESET, TPU_RESET_MAGIC);
	gfx_free(f, f->q[0].sq_iova);
	gfx_free(f, f->q[0].cq_iova);
	gfx_free(f, zero);
	memset(f->q, 0, sizeof(f->q));
	f->next_cid = 1;
}

void gfx_setup_bare(struct gfx *f, const struct golden_config *cfg)
{
	struct golden_dma_port port = { .ctx = f, .read = dma_read, .write = dma_write };
	struct golden_dma_port shadow = { .ctx = f, .read = shadow_read, .write = shadow_write };
	struct tpu_link_mem mem = { .ctx = f, .read = sim_read, .write = sim_write };
	const struct tpu_sim_model *m;
	struct golden_config want;
	struct tpu_link_cfg lc;
	uint32_t lat = gfx_lat_ns;

	gfx_lat_ns = 0;
	memset(f, 0, sizeof(*f));
	f->be = gfx_be;
	if (cfg)
		f->cfg = *cfg;
	else
		gfx_config_small(&f->cfg);
	f->next_cid = 1;
	ck_assert_int_eq(hostmem_create(GFX_ARENA_SIZE, GFX_IOVA_BASE, &f->hm), 0);
	hostmem_set_hook(f->hm, hook, f);
	if (f->be == GFX_GOLDEN) {
		if (gfx_bf16_dev)
			f->cfg.bf16 = 1;
		ck_assert_int_eq(golden_create(&f->cfg, &port, &f->g), 0);
		return;
	}
	want = f->cfg;
	m = sim_model_for(&want);
	ck_assert_msg(m != NULL, "no Verilated model for this configuration");
	model_config(m, &f->cfg);
	ck_assert_int_eq(hostmem_create(GFX_ARENA_SIZE, GFX_IOVA_BASE, &f->shm), 0);
	hostmem_set_hook(f->shm, shadow_hook, f);
	ck_assert_int_eq(golden_create(&f->cfg, &shadow, &f->g), 0);
	tpu_link_cfg_default(&lc);
	lc.seed = harness_seed();
	lc.addr_base = GFX_IOVA_BASE;
	/* results do not depend on link timing; a short, wide link keeps the suites fast */
	lc.latency_ns = lat ? lat : 2;
	lc.bw_d2h = lc.bw_h2d = 0;
	ck_assert_int_eq(tpu_sim_create(m, &lc, &mem, harness_seed(), NULL, &f->sim), 0);
	zero_rams(f, &want);
}

void gfx_setup(struct gfx *f, const struct golden_config *cfg)
{
	gfx_setup_bare(f, cfg);
	gfx_window(f, 0, GFX_IOVA_BASE, GFX_IOVA_BASE + GFX_ARENA_SIZE - 1,
		   TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK | TPU_WIN_PERM_VALID_MASK);
	gfx_queue_setup(f, 0, 16, 16);
	gfx_enable(f);
}

void gfx_teardown(struct gfx *f)
{
	tpu_sim_destroy(f->sim);
	golden_destroy(f->g);
	hostmem_destroy(f->shm);
	hostmem_destroy(f->hm);
	f->sim = NULL;
	f->g = NULL;
	f->hm = f->shm = NULL;
}

uint64_t gfx_perf(struct gfx *f, uint32_t lo_off)
{
	uint64_t lo = gfx_rd(f, lo_off);

	return (uint64_t)gfx_rd(f, lo_off + 4) << 32 | lo;
}

void gfx_window(struct gfx *f, unsigned w, uint64_t base, uint64_t limit, uint32_t perm)
{
	gfx_wr(f, TPU_REG_WIN_PERM(w), 0);
	gfx_wr(f, TPU_REG_WIN_BASE_LO(w), (uint32_t)base);
	gfx_wr(f, TPU_REG_WIN_BASE_HI(w), (uint32_t)(base >> 32));
	gfx_wr(f, TPU_REG_WIN_LIMIT_LO(w), (uint32_t)limit);
	gfx_wr(f, TPU_REG_WIN_LIMIT_HI(w), (uint32_t)(limit >> 32));
	gfx_wr(f, TPU_REG_WIN_PERM(w), perm);
}

void gfx_queue_setup(struct gfx *f, unsigned q, uint32_t sq_size, uint32_t cq_size)
{
	struct gfx_queue *gq = &f->q[q];

	gq->sq = gfx_alloc(f, (size_t)sq_size * TPU_SQE_BYTES, &gq->sq_iova);
	gq->cq = gfx_alloc(f, (size_t)cq_size * TPU_CQE_BYTES, &gq->cq_iova);
	gq->sq_size = sq_size;
	gq->cq_size = cq_size;
	gfx_wr(f, TPU_REG_SQ_BASE_LO(q), (uint32_t)gq->sq_iova);
	gfx_wr(f, TPU_REG_SQ_BASE_HI(q), (uint32_t)(gq->sq_iova >> 32));
	gfx_wr(f, TPU_REG_SQ_SIZE(q), sq_size);
	gfx_wr(f, TPU_REG_CQ_BASE_LO(q), (uint32_t)gq->cq_iova);
	gfx_wr(f, TPU_REG_CQ_BASE_HI(q), (uint32_t)(gq->cq_iova >> 32));
	gfx_wr(f, TPU_REG_CQ_SIZE(q), cq_size);
}

void gfx_enable(struct gfx *f)
{
	unsigned i;

	for (i = 0; i < TPU_NUM_QUEUES_MAX; i++) {
		struct gfx_queue *gq = &f->q[i];

		if (gq->cq)
			memset(gq->cq, 0, (size_t)gq->cq_size * TPU_CQE_BYTES);
		gq->sq_tail = gq->cq_head = 0;
		gq->phase = 1;
	}
	gfx_wr(f, TPU_REG_CC, TPU_CC_EN_MASK);
	ck_assert_uint_eq(gfx_rd(f, TPU_REG_CSTS) & TPU_CSTS_RDY_MASK, TPU_CSTS_RDY_MASK);
}

void gfx_disable(struct gfx *f)
{
	gfx_wr(f, TPU_REG_CC, 0);
	ck_assert_uint_eq(gfx_rd(f, TPU_REG_CSTS) & TPU_CSTS_RDY_MASK, 0);
}

/* ------------------------------------------------------------------ SQE builders */

void gfx_sqe_field(struct gfx_sqe *s, unsigned dw, unsigned shift, uint32_t mask, uint32_t v)
{
	s->dw[dw] = (s->dw[dw] & ~(mask << shift)) | (v & mask) << shift;
}

void gfx_set_addr(struct gfx_sqe *s, uint64_t iova)
{
	GFX_SET(s, HOST_ADDR_LO, iova);
	GFX_SET(s, HOST_ADDR_HI, iova >> 32);
}

struct gfx_sqe gfx_cmd(uint32_t opcode)
{
	struct gfx_sqe s;

	memset(&s, 0, sizeof(s));
	GFX_SET(&s, OPCODE, opcode);
	return s;
}

static void set_dma(struct gfx_sqe *s, uint64_t iova, uint32_t rows, uint32_t row_bytes,
		    uint32_t stride)
{
	uint64_t st = stride ? stride : row_bytes;

	gfx_set_addr(s, iova);
	GFX_SET(s, ROWS, rows);
	GFX_SET(s, STRIDE, stride);
	GFX_SET(s, LENGTH, rows ? (rows - 1) * st + row_bytes : 0);
}

struct gfx_sqe gfx_read_host(uint64_t iova, uint32_t rows, uint32_t cols, uint32_t stride,
			     uint32_t ub_row)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_READ_HOST);

	set_dma(&s, iova, rows, cols, stride);
	GFX_SET(&s, COLS, cols);
	GFX_SET(&s, LOCAL_ADDR, ub_row);
	return s;
}

struct gfx_sqe gfx_load_weights(uint64_t iova, uint32_t rows, uint32_t cols, uint32_t stride,
				bool transpose)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_LOAD_WEIGHTS);

	set_dma(&s, iova, rows, cols, stride);
	GFX_SET(&s, COLS, cols);
	GFX_SET(&s, OP0, transpose ? TPU_LOAD_WEIGHTS_TRANSPOSE : 0);
	return s;
}

struct gfx_sqe gfx_load_vec(uint32_t kind, uint64_t iova, uint32_t cols, uint32_t first)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_LOAD_PARAMS);

	gfx_set_addr(&s, iova);
	GFX_SET(&s, OP0, kind);
	GFX_SET(&s, ROWS, 1);
	GFX_SET(&s, COLS, cols);
	GFX_SET(&s, LENGTH, 4 * cols);
	GFX_SET(&s, LOCAL_ADDR, first);
	return s;
}

struct gfx_sqe gfx_load_lut(uint64_t iova)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_LOAD_PARAMS);

	gfx_set_addr(&s, iova);
	GFX_SET(&s, OP0, TPU_PARAM_LUT);
	GFX_SET(&s, ROWS, 1);
	GFX_SET(&s, COLS, TPU_LUT_ENTRIES);
	GFX_SET(&s, LENGTH, TPU_LUT_ENTRIES);
	return s;
}

struct gfx_sqe gfx_load_output(int32_t zp, int32_t qmin, int32_t qmax)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_LOAD_PARAMS);

	GFX_SET(&s, OP0, TPU_PARAM_OUTPUT);
	GFX_SET(&s, OP1, (uint32_t)zp);
	GFX_SET(&s, OP2, (uint32_t)qmin);
	GFX_SET(&s, OP3, (uint32_t)qmax);
	return s;
}

struct gfx_sqe gfx_matmul(uint32_t ub_row, uint32_t acc_row, uint32_t rows, uint32_t op0)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_MATMUL);

	GFX_SET(&s, LOCAL_ADDR, ub_row);
	GFX_SET(&s, LOCAL_ADDR2, acc_row);
	GFX_SET(&s, ROWS, rows);
	GFX_SET(&s, OP0, op0);
	return s;
}

struct gfx_sqe gfx_activate(uint32_t acc_row, uint32_t dst_row, uint32_t rows, uint32_t op0)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_ACTIVATE);

	GFX_SET(&s, LOCAL_ADDR, acc_row);
	GFX_SET(&s, LOCAL_ADDR2, dst_row);
	GFX_SET(&s, ROWS, rows);
	GFX_SET(&s, OP0, op0);
	return s;
}

struct gfx_sqe gfx_write_host(uint64_t iova, uint32_t rows, uint32_t cols, uint32_t stride,
			      uint32_t local, bool from_acc)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_WRITE_HOST);

	set_dma(&s, iova, rows, from_acc ? 4 * cols : cols, stride);
	GFX_SET(&s, COLS, cols);
	GFX_SET(&s, LOCAL_ADDR, local);
	GFX_SET(&s, OP0, from_acc ? TPU_WRITE_HOST_FROM_ACC : 0);
	return s;
}

struct gfx_sqe gfx_fence(uint64_t iova, uint64_t value)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_FENCE);

	if (iova) {
		gfx_set_addr(&s, iova);
		GFX_SET(&s, LENGTH, 8);
		GFX_SET(&s, OP0, (uint32_t)value);
		GFX_SET(&s, OP1, (uint32_t)(value >> 32));
	}
	return s;
}

struct gfx_sqe gfx_identify(uint64_t iova)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_IDENTIFY);

	gfx_set_addr(&s, iova);
	GFX_SET(&s, LENGTH, TPU_IDENTIFY_BYTES);
	return s;
}

/* ------------------------------------------------------------------ rings */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void gfx_push(struct gfx *f, unsigned q, const struct gfx_sqe *s)
{
	struct gfx_queue *gq = &f->q[q];
	uint8_t *p = gq->sq + (size_t)gq->sq_tail * TPU_SQE_BYTES;
	unsigned i;

	for (i = 0; i < 16; i++)
		put32(p + 4 * i, s->dw[i]);
	gq->sq_tail = (gq->sq_tail + 1) % gq->sq_size;
}

void gfx_ring(struct gfx *f, unsigned q)
{
	gfx_wr(f, TPU_REG_SQ_TAIL_DB(q), f->q[q].sq_tail);
}

#define CQE_FIELD(dw, F) ((dw[TPU_CQE_##F##_DW] >> TPU_CQE_##F##_SHIFT) & TPU_CQE_##F##_MASK)

bool gfx_peek(struct gfx *f, unsigned q, struct gfx_cqe *c)
{
	struct gfx_queue *gq = &f->q[q];
	const uint8_t *p = gq->cq + (size_t)gq->cq_head * TPU_CQE_BYTES;
	uint32_t dw[4];
	unsigned i;

	for (i = 0; i < 4; i++)
		dw[i] = get32(p + 4 * i);
	if (CQE_FIELD(dw, PHASE) != gq->phase)
		return false;
	c->result = CQE_FIELD(dw, RESULT);
	c->user_tag = CQE_FIELD(dw, USER_TAG);
	c->sq_head = CQE_FIELD(dw, SQ_HEAD);
	c->sq_id = CQE_FIELD(dw, SQ_ID);
	c->cid = CQE_FIELD(dw, CID);
	c->phase = CQE_FIELD(dw, PHASE);
	c->sc = CQE_FIELD(dw, SC);
	c->sct = CQE_FIELD(dw, SCT);
	c->dnr = CQE_FIELD(dw, DNR);
	return true;
}

bool gfx_reap(struct gfx *f, unsigned q, struct gfx_cqe *c)
{
	struct gfx_queue *gq = &f->q[q];

	if (!gfx_peek(f, q, c))
		return false;
	if (++gq->cq_head == gq->cq_size) {
		gq->cq_head = 0;
		gq->phase ^= 1;
	}
	gfx_wr(f, TPU_REG_CQ_HEAD_DB(q), gq->cq_head);
	return true;
}

uint32_t gfx_exec(struct gfx *f, const struct gfx_sqe *s, struct gfx_cqe *c)
{
	struct gfx_sqe t = *s;
	struct gfx_cqe local;
	uint16_t cid = f->next_cid++;

	if (!c)
		c = &local;
	GFX_SET(&t, CID, cid);
	gfx_push(f, 0, &t);
	gfx_ring(f, 0);
	ck_assert_uint_eq(gfx_run(f, 1), 1);
	ck_assert(gfx_reap(f, 0, c));
	ck_assert_uint_eq(c->cid, cid);
	ck_assert_uint_eq(c->sq_id, 0);
	ck_assert_uint_eq(c->sct, 0);
	if (c->sc)
		ck_assert_uint_eq(c->result, 0);
	return c->sc;
}

uint32_t gfx_ok(struct gfx *f, const struct gfx_sqe *s)
{
	struct gfx_cqe c;

	ck_assert_uint_eq(gfx_exec(f, s, &c), TPU_SC_SUCCESS);
	return c.result;
}

void gfx_fail_range(struct gfx *f, uint64_t lo, uint64_t len, enum hostmem_dir dir, bool any)
{
	f->fail_on = true;
	f->fail_lo = lo;
	f->fail_hi = lo + len - 1;
	f->fail_dir = dir;
	f->fail_any_dir = any;
}

void gfx_fail_off(struct gfx *f)
{
	f->fail_on = false;
}

void gfx_record(struct gfx *f)
{
	f->record = true;
	f->nlog = 0;
}
