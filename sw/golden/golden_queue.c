/* Golden device: controller enable/disable, doorbells, and the queue engine that fetches one SQE
 * at a time (round robin across queues), executes it and posts its CQE and interrupt
 * (docs/spec.md §3, §4). */
#include "golden_internal.h"

static bool ready(const struct golden *g)
{
	return g->csts & TPU_CSTS_RDY_MASK;
}

static bool queue_config_ok(const struct golden *g, const struct golden_queue *q)
{
	uint32_t max = g->cfg.max_queue_entries;

	return q->sq_size >= 2 && q->sq_size <= max && q->cq_size >= 2 && q->cq_size <= max &&
	       q->sq_base % TPU_QUEUE_ALIGN == 0 && q->cq_base % TPU_QUEUE_ALIGN == 0;
}

/* CC.EN 0 -> 1. A device that went fatal stays stopped until RESET (CSTS.CFS "cleared only by
 * reset"), so enabling it again does not make it ready. */
void golden_enable(struct golden *g)
{
	uint32_t i;

	if (g->csts & TPU_CSTS_CFS_MASK)
		return;
	for (i = 0; i < g->cfg.num_queues; i++) {
		struct golden_queue *q = &g->q[i];

		q->sq_head = q->sq_tail = q->cq_head = q->cq_tail = 0;
		q->phase = 1;
		q->broken = false;
		q->configured = false;
		if (q->sq_size == 0)
			continue;
		if (queue_config_ok(g, q)) {
			q->configured = true;
		} else {
			q->broken = true;
			g->gstat |= TPU_GSTAT_QUEUE_CONFIG_ERR_MASK;
		}
	}
	g->rr = 0;
	g->csts |= TPU_CSTS_RDY_MASK;
}

/* CC.EN 1 -> 0, RESET, or a fatal error. Nothing is in flight in the golden model, so stopping
 * is immediate; FIFO, active tile and parameters are kept. */
void golden_disable(struct golden *g)
{
	g->csts &= ~TPU_CSTS_RDY_MASK;
}

static void go_fatal(struct golden *g, uint32_t gstat_bit)
{
	g->gstat |= gstat_bit;
	g->csts |= TPU_CSTS_CFS_MASK;
	golden_disable(g);
}

bool golden_queue_active(const struct golden *g, uint32_t qid)
{
	const struct golden_queue *q = &g->q[qid];

	return ready(g) && q->configured && !q->broken;
}

static void bad_doorbell(struct golden *g, struct golden_queue *q)
{
	g->gstat |= TPU_GSTAT_BAD_DOORBELL_MASK;
	q->broken = true;
}

void golden_sq_doorbell(struct golden *g, uint32_t qid, uint32_t val)
{
	struct golden_queue *q = &g->q[qid];

	if (!ready(g))
		return;
	if (!golden_queue_active(g, qid) || val >= q->sq_size) {
		bad_doorbell(g, q);
		return;
	}
	q->sq_tail = val;
}

void golden_cq_doorbell(struct golden *g, uint32_t qid, uint32_t val)
{
	struct golden_queue *q = &g->q[qid];
	uint32_t size = q->cq_size;

	if (!ready(g))
		return;
	/* The new head may release only entries the device posted: (new - old) mod size must not
	 * exceed (tail - old) mod size. Sizes are <= 65536, so the sums cannot overflow. */
	if (!golden_queue_active(g, qid) || val >= size ||
	    (val + size - q->cq_head) % size > (q->cq_tail + size - q->cq_head) % size) {
		bad_doorbell(g, q);
		return;
	}
	q->cq_head = val;
}

/* ------------------------------------------------------------------ interrupts */

static void send_msi(struct golden *g)
{
	uint8_t buf[4];

	/* MSI_ADDR must be 4-byte aligned and lie in a writable window. */
	if ((g->msi_addr & 3) || !golden_window_ok(g, g->msi_addr, 4, true)) {
		g->gstat |= TPU_GSTAT_MSI_ERR_MASK;
		return;
	}
	put_le32(buf, g->msi_data);
	golden_dma_post(g, g->msi_addr, buf, sizeof(buf)); /* posted: a refusal is not seen */
}

static bool msi_allowed(const struct golden *g)
{
	return ready(g) && (g->msi_ctrl & TPU_MSI_CTRL_EN_MASK) &&
	       !(g->int_mask & TPU_INT_MASK_MASK_MASK);
}

/* INT_MASK.MASK 1 -> 0: a pending interrupt fires once. */
void golden_unmask_irq(struct golden *g)
{
	if ((g->int_status & TPU_INT_STATUS_CQE_MASK) && msi_allowed(g))
		send_msi(g);
}

/* ------------------------------------------------------------------ completion */

static uint32_t status_dnr(uint32_t sc)
{
	switch (sc) {
#define DNR_CASE(name, value, dnr, text) case value: return dnr;
	TPU_STATUS_LIST(DNR_CASE)
#undef DNR_CASE
	default: return 0;
	}
}

static void perf_add(struct golden *g, enum golden_perf_id id, uint64_t v)
{
	g->perf[id].val += v;
}

/* Error log, GSTAT and PERF bookkeeping of one executed command (spec §6.1). */
static void account(struct golden *g, const struct golden_cmd *c, const struct golden_result *r)
{
	uint64_t bytes = r->rd_bytes + r->wr_bytes;
	uint32_t count;

	g->perf_cmds++;
	perf_add(g, GOLDEN_PERF_CYCLES,
		 GOLDEN_CYC_CMD + (bytes + GOLDEN_CYC_DMA_BYTES - 1) / GOLDEN_CYC_DMA_BYTES +
			 r->cycles);
	perf_add(g, GOLDEN_PERF_DMA_RD, r->rd_bytes);
	perf_add(g, GOLDEN_PERF_DMA_WR, r->wr_bytes);
	if (r->sc == TPU_SC_SUCCESS)
		return;
	g->perf_errors++;
	g->errlog0 = SQE(c, CID) << TPU_ERRLOG0_CID_SHIFT |
		     SQE(c, OPCODE) << TPU_ERRLOG0_OPCODE_SHIFT |
		     (c->qid & 0xFFu) << TPU_ERRLOG0_QID_SHIFT;
	count = (g->errlog1 & TPU_ERRLOG1_COUNT_MASK) >> TPU_ERRLOG1_COUNT_SHIFT;
	if (count < 0xFFFFu)
		count++;
	g->errlog1 = (r->sc & 0xFFu) << TPU_ERRLOG1_SC_SHIFT | count << TPU_ERRLOG1_COUNT_SHIFT;
	g->gstat |= TPU_GSTAT_CMD_ERROR_MASK;
	g->errlog_addr = 0;
	if (r->sc == TPU_SC_DMA_ACCESS_VIOLATION) {
		g->gstat |= TPU_GSTAT_DMA_VIOLATION_MASK;
		g->errlog_addr = sqe_host_addr(c);
	} else if (r->sc == TPU_SC_DMA_XFER_ERROR) {
		g->gstat |= TPU_GSTAT_DMA_XFER_ERR_MASK;
		g->errlog_addr = sqe_host_addr(c);
	}
}

/* Writes the CQE with the PHASE dword last. The writes are posted: a CQE that host memory
 * refuses is lost without the device noticing (no CSTS.CFS); the driver's timeout and reset
 * recover (spec §3 item 6). */
static void post_cqe(struct golden *g, uint32_t qid, const struct golden_cmd *c,
		     const struct golden_result *r)
{
	struct golden_queue *q = &g->q[qid];
	uint64_t addr = q->cq_base + (uint64_t)q->cq_tail * TPU_CQE_BYTES;
	uint32_t dw[4];
	uint8_t buf[TPU_CQE_BYTES];
	unsigned i;

	dw[0] = r->sc == TPU_SC_SUCCESS ? r->result : 0;
	dw[1] = SQE(c, USER_TAG);
	dw[2] = (q->sq_head & TPU_CQE_SQ_HEAD_MASK) << TPU_CQE_SQ_HEAD_SHIFT |
		(qid & TPU_CQE_SQ_ID_MASK) << TPU_CQE_SQ_ID_SHIFT;
	dw[3] = SQE(c, CID) << TPU_CQE_CID_SHIFT | (q->phase & 1u) << TPU_CQE_PHASE_SHIFT |
		(r->sc & TPU_CQE_SC_MASK) << TPU_CQE_SC_SHIFT |
		status_dnr(r->sc) << TPU_CQE_DNR_SHIFT;
	for (i = 0; i < 4; i++)
		put_le32(buf + 4 * i, dw[i]);
	golden_dma_post(g, addr, buf, 12);
	golden_dma_post(g, addr + 12, buf + 12, 4);
	if (++q->cq_tail == q->cq_size) {
		q->cq_tail = 0;
		q->phase ^= 1;
	}
}

/* ------------------------------------------------------------------ fetch and execute */

static bool can_fetch(const struct golden *g, uint32_t qid)
{
	const struct golden_queue *q = &g->q[qid];

	/* A CQ holds at most size - 1 unconsumed entries; fetch only when this one fits. */
	return golden_queue_active(g, qid) && q->sq_head != q->sq_tail &&
	       (q->cq_tail + 1) % q->cq_size != q->cq_head;
}

/* One command of queue qid: fetch, execute, complete. Returns false when the device went fatal. */
static bool step(struct golden *g, uint32_t qid)
{
	struct golden_queue *q = &g->q[qid];
	struct golden_cmd c = { .qid = qid };
	struct golden_result r = { 0 };
	uint8_t buf[TPU_SQE_BYTES];
	unsigned i;

	if (golden_dma_read(g, q->sq_base + (uint64_t)q->sq_head * TPU_SQE_BYTES, buf,
			    sizeof(buf))) {
		go_fatal(g, TPU_GSTAT_SQ_FETCH_ERR_MASK);
		return false;
	}
	for (i = 0; i < TPU_SQE_BYTES / 4; i++)
		c.dw[i] = get_le32(buf + 4 * i);
	q->sq_head = (q->sq_head + 1) % q->sq_size;

	golden_execute(g, &c, &r);
	account(g, &c, &r);
	post_cqe(g, qid, &c, &r);
	if (SQE(&c, FLAGS) & TPU_SQE_FLAG_IRQ) {
		g->int_status |= TPU_INT_STATUS_CQE_MASK;
		if (msi_allowed(g))
			send_msi(g);
	}
	return true;
}

unsigned golden_run(struct golden *g, unsigned max_cmds)
{
	unsigned done = 0, nq = g->cfg.num_queues;

	while (done < max_cmds && ready(g)) {
		unsigned i, qid = nq;

		for (i = 0; i < nq; i++) {
			if (can_fetch(g, (g->rr + i) % nq)) {
				qid = (g->rr + i) % nq;
				break;
			}
		}
		if (qid == nq)
			break;
		g->rr = (qid + 1) % nq;
		if (!step(g, qid))
			break;
		done++;
	}
	return done;
}
