/* Golden device: configuration, lifecycle and the BAR0 register file (docs/spec.md §1-§3). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "golden_internal.h"

void golden_config_default(struct golden_config *cfg)
{
	cfg->array_n = TPU_ARRAY_N_DEFAULT;
	cfg->ub_rows = TPU_UB_ROWS_DEFAULT;
	cfg->acc_rows = TPU_ACC_ROWS_DEFAULT;
	cfg->fifo_tiles = TPU_FIFO_TILES_DEFAULT;
	cfg->num_queues = TPU_NUM_QUEUES_DEFAULT;
	cfg->num_windows = TPU_NUM_WINDOWS_DEFAULT;
	cfg->max_queue_entries = TPU_MAX_QUEUE_ENTRIES_DEFAULT;
	cfg->bf16 = TPU_BF16_DEFAULT;
	cfg->stream_mm = 1;
	cfg->round = 1;
}

int golden_config_check(const struct golden_config *cfg, const char **what)
{
	const char *bad = NULL;

	if (!cfg)
		bad = "config";
#define CHECK_FIELD(f, P)                                                \
	else if (cfg->f < TPU_##P##_MIN || cfg->f > TPU_##P##_MAX)       \
		bad = #f;
	CHECK_FIELD(array_n, ARRAY_N)
	CHECK_FIELD(ub_rows, UB_ROWS)
	CHECK_FIELD(acc_rows, ACC_ROWS)
	CHECK_FIELD(fifo_tiles, FIFO_TILES)
	CHECK_FIELD(num_queues, NUM_QUEUES)
	CHECK_FIELD(num_windows, NUM_WINDOWS)
	CHECK_FIELD(max_queue_entries, MAX_QUEUE_ENTRIES)
#undef CHECK_FIELD
	else if (cfg->bf16 > TPU_BF16_MAX) /* (TPU_BF16_MIN is 0: unsigned) */
		bad = "bf16";
	else if (cfg->round > 1)
		bad = "round";
	else if (cfg->stream_mm > 1)
		bad = "stream";
	if (what)
		*what = bad;
	return bad ? -EINVAL : 0;
}

/* Power-on / RESET state (spec §3 item 1). UB, ACC and parameter values are RAM contents and are
 * kept; only the valid/loaded state is cleared. */
void golden_power_on_state(struct golden *g)
{
	const struct golden_config *cfg = &g->cfg;

	g->cc = g->csts = g->gstat = g->int_mask = g->int_status = 0;
	g->errlog0 = g->errlog1 = 0;
	g->errlog_addr = g->msi_addr = 0;
	g->msi_data = g->msi_ctrl = 0;
	memset(g->perf, 0, sizeof(g->perf));
	g->perf_cmds = g->perf_errors = 0;
	memset(g->q, 0, cfg->num_queues * sizeof(*g->q));
	memset(g->win, 0, cfg->num_windows * sizeof(*g->win));
	g->rr = 0;
	g->fifo_head = g->fifo_count = 0;
	g->active_valid = false;
	memset(g->loaded, 0, sizeof(g->loaded));
}

static void *calloc2(size_t a, size_t b, size_t c)
{
	/* a * b elements of c bytes; the config limits keep this far below SIZE_MAX on 64-bit hosts,
	 * but refuse rather than wrap anywhere else. */
	if (b && a > SIZE_MAX / b)
		return NULL;
	return calloc(a * b, c);
}

int golden_create(const struct golden_config *cfg, const struct golden_dma_port *dma,
		  struct golden **out)
{
	struct golden *g;
	size_t n;
	uint32_t i;

	if (!out || !dma || !dma->read || !dma->write || golden_config_check(cfg, NULL))
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->cfg = *cfg;
	g->dma = *dma;
	n = cfg->array_n;
	/* Largest transfer through the scratch: a READ_HOST filling the whole UB, a weight tile
	 * (2 bytes an element on a bf16 device), a parameter vector (4N), the LUT, or the identity
	 * page (out). */
	g->ub_row_bytes = cfg->bf16 ? 2 * (uint32_t)n : (uint32_t)n;
	g->scratch_len = (size_t)cfg->ub_rows * g->ub_row_bytes;
	if (g->scratch_len < (cfg->bf16 ? 2 : 1) * n * n)
		g->scratch_len = (cfg->bf16 ? 2 : 1) * n * n;
	if (g->scratch_len < 4 * n)
		g->scratch_len = 4 * n;
	if (g->scratch_len < TPU_IDENTIFY_BYTES) /* also >= TPU_LUT_ENTRIES */
		g->scratch_len = TPU_IDENTIFY_BYTES;
	g->q = calloc(cfg->num_queues, sizeof(*g->q));
	g->win = calloc(cfg->num_windows, sizeof(*g->win));
	g->ub = calloc2(cfg->ub_rows, g->ub_row_bytes, 1);
	g->acc = calloc2(cfg->acc_rows, n, sizeof(int32_t));
	g->fifo = calloc(cfg->fifo_tiles, sizeof(*g->fifo));
	g->active.w = calloc2(n, n, 1);
	g->bias = calloc(n, sizeof(int32_t));
	g->mult = calloc(n, sizeof(int32_t));
	g->shift = calloc(n, sizeof(int32_t));
	g->scratch = malloc(g->scratch_len);
	g->rowsum = calloc(n, sizeof(uint32_t));
	if (!g->q || !g->win || !g->ub || !g->acc || !g->fifo || !g->active.w || !g->bias ||
	    !g->mult || !g->shift || !g->scratch || !g->rowsum)
		goto out_destroy;
	if (cfg->bf16) {
		g->scale = calloc(n, sizeof(uint32_t));
		g->active.w16 = calloc2(n, n, sizeof(uint16_t));
		if (!g->scale || !g->active.w16)
			goto out_destroy;
	}
	for (i = 0; i < cfg->fifo_tiles; i++) {
		g->fifo[i].w = calloc2(n, n, 1);
		if (!g->fifo[i].w)
			goto out_destroy;
		if (cfg->bf16 && !(g->fifo[i].w16 = calloc2(n, n, sizeof(uint16_t))))
			goto out_destroy;
	}
	golden_power_on_state(g);
	*out = g;
	return 0;

out_destroy:
	golden_destroy(g);
	return -ENOMEM;
}

void golden_destroy(struct golden *g)
{
	uint32_t i;

	if (!g)
		return;
	if (g->fifo)
		for (i = 0; i < g->cfg.fifo_tiles; i++) {
			free(g->fifo[i].w);
			free(g->fifo[i].w16);
		}
	free(g->fifo);
	free(g->active.w);
	free(g->active.w16);
	free(g->scale);
	free(g->q);
	free(g->win);
	free(g->ub);
	free(g->acc);
	free(g->bias);
	free(g->mult);
	free(g->shift);
	free(g->scratch);
	free(g->rowsum);
	free(g);
}

/* ------------------------------------------------------------------ register reads */

static uint32_t hwcfg0(const struct golden *g)
{
	return g->cfg.array_n << TPU_HWCFG0_ARRAY_N_SHIFT |
	       g->cfg.fifo_tiles << TPU_HWCFG0_FIFO_TILES_SHIFT |
	       g->cfg.num_queues << TPU_HWCFG0_NUM_QUEUES_SHIFT |
	       g->cfg.num_windows << TPU_HWCFG0_NUM_WINDOWS_SHIFT;
}

static uint32_t cap(const struct golden *g)
{
	return (g->cfg.max_queue_entries - 1) << TPU_CAP_MQES_SHIFT |
	       GOLDEN_CAP_TIMEOUT << TPU_CAP_TIMEOUT_SHIFT;
}

static uint32_t lo32(uint64_t v)
{
	return (uint32_t)v;
}

static uint32_t hi32(uint64_t v)
{
	return (uint32_t)(v >> 32);
}

static uint32_t perf_read(struct golden *g, uint32_t off)
{
	unsigned id = (off - TPU_REG_PERF_CYCLES_LO) / 8;
	struct golden_perf *p = &g->perf[id];

	if (off & 4)
		return p->hi_latch;
	p->hi_latch = hi32(p->val);
	return lo32(p->val);
}

static uint32_t queue_reg_read(const struct golden *g, uint32_t qid, uint32_t reg)
{
	const struct golden_queue *q = &g->q[qid];
	uint32_t v;

	switch (reg) {
	case 0x00: return lo32(q->sq_base);
	case 0x04: return hi32(q->sq_base);
	case 0x08: return q->sq_size;
	case 0x0C: return lo32(q->cq_base);
	case 0x10: return hi32(q->cq_base);
	case 0x14: return q->cq_size;
	case 0x18:
		v = q->sq_head & TPU_Q_STATUS_SQ_HEAD_MASK;
		if (golden_queue_active(g, qid))
			v |= TPU_Q_STATUS_ACTIVE_MASK;
		if (q->broken)
			v |= TPU_Q_STATUS_BROKEN_MASK;
		return v;
	default: return q->cq_tail & 0xFFFFu;
	}
}

static uint32_t window_reg_read(const struct golden *g, uint32_t w, uint32_t reg)
{
	const struct golden_window *win = &g->win[w];

	switch (reg) {
	case 0x00: return lo32(win->base);
	case 0x04: return hi32(win->base);
	case 0x08: return lo32(win->limit);
	case 0x0C: return hi32(win->limit);
	case 0x10: return win->perm;
	default: return 0;
	}
}

uint32_t golden_mmio_read(struct golden *g, uint32_t off)
{
	if (off & 3)
		return 0;
	if (off >= 0x100 && off < 0x100 + g->cfg.num_queues * 0x20u)
		return queue_reg_read(g, (off - 0x100) / 0x20, (off - 0x100) % 0x20);
	if (off >= 0x200 && off < 0x200 + g->cfg.num_windows * 0x20u)
		return window_reg_read(g, (off - 0x200) / 0x20, (off - 0x200) % 0x20);
	if (off >= TPU_REG_PERF_CYCLES_LO && off <= TPU_REG_PERF_DMA_WR_HI)
		return perf_read(g, off);
	switch (off) {
	case TPU_REG_ID: return TPU_ID;
	case TPU_REG_VERSION:
		return TPU_VERSION_MAJOR << TPU_VERSION_MAJOR_SHIFT |
		       TPU_VERSION_MINOR << TPU_VERSION_MINOR_SHIFT |
		       TPU_VERSION_PATCH << TPU_VERSION_PATCH_SHIFT;
	case TPU_REG_HWCFG0: return hwcfg0(g);
	case TPU_REG_HWCFG1: return g->cfg.ub_rows;
	case TPU_REG_HWCFG2: return g->cfg.acc_rows;
	case TPU_REG_CAP: return cap(g);
	case TPU_REG_OPCODES: return golden_opcodes(g);
	case TPU_REG_FEATURES:
		return (g->cfg.bf16 ? TPU_FEATURES_BF16_MASK : 0) |
		       (g->cfg.round ? TPU_FEATURES_ROUND_MASK : 0);
	case TPU_REG_CC: return g->cc;
	case TPU_REG_CSTS: return g->csts;
	case TPU_REG_GSTAT: return g->gstat;
	case TPU_REG_INT_MASK: return g->int_mask;
	case TPU_REG_INT_STATUS: return g->int_status;
	case TPU_REG_ERRLOG0: return g->errlog0;
	case TPU_REG_ERRLOG1: return g->errlog1;
	case TPU_REG_ERRLOG_ADDR_LO: return lo32(g->errlog_addr);
	case TPU_REG_ERRLOG_ADDR_HI: return hi32(g->errlog_addr);
	case TPU_REG_MSI_ADDR_LO: return lo32(g->msi_addr);
	case TPU_REG_MSI_ADDR_HI: return hi32(g->msi_addr);
	case TPU_REG_MSI_DATA: return g->msi_data;
	case TPU_REG_MSI_CTRL: return g->msi_ctrl;
	case TPU_REG_PERF_CMDS: return g->perf_cmds;
	case TPU_REG_PERF_ERRORS: return g->perf_errors;
	default: return 0; /* write-only and unmapped offsets */
	}
}

/* ------------------------------------------------------------------ register writes */

static void set_lo(uint64_t *v, uint32_t val)
{
	*v = (*v & 0xFFFFFFFF00000000ull) | val;
}

static void set_hi(uint64_t *v, uint32_t val)
{
	*v = (*v & 0xFFFFFFFFull) | (uint64_t)val << 32;
}

static void queue_reg_write(struct golden *g, uint32_t qid, uint32_t reg, uint32_t val)
{
	struct golden_queue *q = &g->q[qid];

	if (g->cc & TPU_CC_EN_MASK)
		return; /* queue configuration is frozen while enabled */
	switch (reg) {
	case 0x00: set_lo(&q->sq_base, val); break;
	case 0x04: set_hi(&q->sq_base, val); break;
	case 0x08: q->sq_size = val; break;
	case 0x0C: set_lo(&q->cq_base, val); break;
	case 0x10: set_hi(&q->cq_base, val); break;
	case 0x14: q->cq_size = val; break;
	default: break; /* Q_STATUS, Q_CQ_TAIL are read-only */
	}
}

static void window_reg_write(struct golden *g, uint32_t w, uint32_t reg, uint32_t val)
{
	struct golden_window *win = &g->win[w];
	const uint32_t perm_bits = TPU_WIN_PERM_R_MASK | TPU_WIN_PERM_W_MASK |
				   TPU_WIN_PERM_VALID_MASK;

	if (reg == 0x10) {
		win->perm = val & perm_bits;
		return;
	}
	if (win->perm & TPU_WIN_PERM_VALID_MASK)
		return; /* base and limit are locked while the window is valid */
	switch (reg) {
	case 0x00: set_lo(&win->base, val); break;
	case 0x04: set_hi(&win->base, val); break;
	case 0x08: set_lo(&win->limit, val); break;
	case 0x0C: set_hi(&win->limit, val); break;
	default: break;
	}
}

static void cc_write(struct golden *g, uint32_t val)
{
	uint32_t en = val & TPU_CC_EN_MASK, old = g->cc & TPU_CC_EN_MASK;

	g->cc = en;
	if (en && !old)
		golden_enable(g);
	else if (!en && old)
		golden_disable(g);
}

static void doorbell_write(struct golden *g, uint32_t off, uint32_t val)
{
	uint32_t idx = (off - TPU_REG_SQ_TAIL_DB(0)) / 4;

	if (idx & 1)
		golden_cq_doorbell(g, idx / 2, val);
	else
		golden_sq_doorbell(g, idx / 2, val);
}

void golden_mmio_write(struct golden *g, uint32_t off, uint32_t val)
{
	uint32_t old;

	if (off & 3)
		return;
	if (off >= 0x100 && off < 0x100 + g->cfg.num_queues * 0x20u) {
		queue_reg_write(g, (off - 0x100) / 0x20, (off - 0x100) % 0x20, val);
		return;
	}
	if (off >= 0x200 && off < 0x200 + g->cfg.num_windows * 0x20u) {
		/* a window write takes effect at a command boundary (spec §5): every command the
		 * device can fetch now runs to completion with the old windows first (the RTL holds
		 * the write until then; CSTS.WPEND therefore always reads 0 here) */
		(void)golden_run(g, UINT_MAX);
		window_reg_write(g, (off - 0x200) / 0x20, (off - 0x200) % 0x20, val);
		return;
	}
	if (off >= TPU_REG_SQ_TAIL_DB(0) && off < TPU_REG_SQ_TAIL_DB(g->cfg.num_queues)) {
		doorbell_write(g, off, val);
		return;
	}
	switch (off) {
	case TPU_REG_CC: cc_write(g, val); break;
	case TPU_REG_RESET:
		if (val == TPU_RESET_MAGIC) {
			golden_disable(g);
			golden_power_on_state(g);
		}
		break;
	case TPU_REG_GSTAT: g->gstat &= ~val; break;
	case TPU_REG_INT_MASK:
		old = g->int_mask;
		g->int_mask = val & TPU_INT_MASK_MASK_MASK;
		if ((old & TPU_INT_MASK_MASK_MASK) && !g->int_mask)
			golden_unmask_irq(g);
		break;
	case TPU_REG_INT_STATUS: g->int_status &= ~val; break;
	case TPU_REG_ERRLOG1: g->errlog1 &= ~TPU_ERRLOG1_COUNT_MASK; break;
	case TPU_REG_MSI_ADDR_LO: set_lo(&g->msi_addr, val); break;
	case TPU_REG_MSI_ADDR_HI: set_hi(&g->msi_addr, val); break;
	case TPU_REG_MSI_DATA: g->msi_data = val; break;
	case TPU_REG_MSI_CTRL: g->msi_ctrl = val & TPU_MSI_CTRL_EN_MASK; break;
	case TPU_REG_PERF_CTRL:
		if (val & 1) {
			memset(g->perf, 0, sizeof(g->perf));
			g->perf_cmds = g->perf_errors = 0;
		}
		break;
	default: break; /* read-only and unmapped offsets */
	}
}
