/* Golden-model test fixture; see golden_fixture.h. */
#include <string.h>

#include "golden_fixture.h"
#include "harness.h"

void gfx_config_small(struct golden_config *cfg)
{
	golden_config_default(cfg);
	cfg->array_n = 8;
	cfg->ub_rows = 64;
	cfg->acc_rows = 64;
	cfg->fifo_tiles = 2;
	cfg->num_queues = 2;
	cfg->num_windows = 4;
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
	if (f->fail_on && (f->fail_any_dir || dir == f->fail_dir) && len &&
	    iova <= f->fail_hi && iova + (len - 1) >= f->fail_lo)
		return 1;
	return 0;
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

void gfx_setup_bare(struct gfx *f, const struct golden_config *cfg)
{
	struct golden_dma_port port = { .ctx = f, .read = dma_read, .write = dma_write };

	memset(f, 0, sizeof(*f));
	if (cfg)
		f->cfg = *cfg;
	else
		gfx_config_small(&f->cfg);
	ck_assert_int_eq(hostmem_create(GFX_ARENA_SIZE, GFX_IOVA_BASE, &f->hm), 0);
	hostmem_set_hook(f->hm, hook, f);
	ck_assert_int_eq(golden_create(&f->cfg, &port, &f->g), 0);
	f->next_cid = 1;
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
	golden_destroy(f->g);
	hostmem_destroy(f->hm);
	f->g = NULL;
	f->hm = NULL;
}

uint32_t gfx_rd(struct gfx *f, uint32_t off)
{
	return golden_mmio_read(f->g, off);
}

void gfx_wr(struct gfx *f, uint32_t off, uint32_t val)
{
	golden_mmio_write(f->g, off, val);
}

uint64_t gfx_perf(struct gfx *f, uint32_t lo_off)
{
	uint64_t lo = gfx_rd(f, lo_off);

	return (uint64_t)gfx_rd(f, lo_off + 4) << 32 | lo;
}

void *gfx_alloc(struct gfx *f, size_t len, uint64_t *iova)
{
	void *p = NULL;

	ck_assert_int_eq(hostmem_alloc(f->hm, len, 64, iova, &p), 0);
	return p;
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
	ck_assert_uint_eq(golden_run(f->g, 1), 1);
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
