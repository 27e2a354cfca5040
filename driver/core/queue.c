/* Submission and completion queues.
 *
 * Every command gets a CID that no other outstanding command of its queue has. A CID stays
 * taken from submission until its completion is handed to the caller, so a stale or duplicate
 * CQE can never complete the wrong command.
 *
 * Reaping: the host reads the device's CQ tail once (which also tells a vanished device, all-ones,
 * from a live one) and considers only the entries the device says it has posted, [head, tail),
 * in order:
 *  - an entry whose phase is still the old one has not landed yet (CQE writes are posted and
 *    may still be on the link when the tail register is read): stop there, consume nothing more;
 *  - an entry with the new phase but a wrong SQ id or a CID not in flight is bogus: counted and
 *    consumed (the device did post it, and leaving it would wedge the ring);
 *  - anything else completes its command.
 * Entries beyond the device tail are never touched, so a fake entry planted in CQ memory can
 * neither complete anything nor make the host ring a head doorbell past the tail (which would
 * break the queue).
 *
 * Reaped completions go to a per-queue stash; poll and wait hand them out from there, so a wait
 * that times out loses nothing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define GET(dw, F) (((dw)[TPU_CQE_##F##_DW] >> TPU_CQE_##F##_SHIFT) & TPU_CQE_##F##_MASK)
#define SQE(cmd, F) (((cmd)->dw[TPU_SQE_##F##_DW] >> TPU_SQE_##F##_SHIFT) & TPU_SQE_##F##_MASK)

static int queue_ok(tpu_dev *dev, unsigned q)
{
	return dev && q < dev->info.num_queues;
}

int tpu_queue_init(tpu_dev *dev, unsigned q, uint32_t depth)
{
	struct tpu_queue *qu = &dev->q[q];
	void *sq, *cq;
	int err;

	qu->depth = depth;
	/* A CID space larger than the ring delays reuse of a CID, which makes late duplicates
	 * of an old completion recognisable. */
	qu->cid_space = depth * 4u < 64u ? 64u : depth * 4u;
	if (qu->cid_space > 65536u)
		qu->cid_space = 65536u;
	qu->rec = calloc(qu->cid_space, sizeof(*qu->rec));
	qu->stash = calloc(qu->cid_space, sizeof(*qu->stash));
	if (!qu->rec || !qu->stash)
		return -ENOMEM;
	err = hostmem_alloc(dev->hm, (size_t)depth * TPU_SQE_BYTES, TPU_QUEUE_ALIGN, &qu->sq_iova,
			    &sq);
	if (err)
		return -ENOMEM;
	qu->sq = sq;
	err = hostmem_alloc(dev->hm, (size_t)depth * TPU_CQE_BYTES, TPU_QUEUE_ALIGN, &qu->cq_iova,
			    &cq);
	if (err)
		return -ENOMEM;
	qu->cq = cq;
	return 0;
}

void tpu_queue_fini(tpu_dev *dev, unsigned q)
{
	struct tpu_queue *qu = &dev->q[q];

	/* Ring memory goes with the arena. */
	free(qu->rec);
	free(qu->stash);
	memset(qu, 0, sizeof(*qu));
}

void tpu_queue_rewind(tpu_dev *dev, unsigned q)
{
	struct tpu_queue *qu = &dev->q[q];

	/* Phase bits must read 0 before the device's first pass writes 1. */
	memset(qu->cq, 0, (size_t)qu->depth * TPU_CQE_BYTES);
	qu->sq_tail = 0;
	qu->cq_head = 0;
	qu->phase = 1;
	qu->inflight = 0;
}

uint32_t tpu_queue_free_slots(const tpu_dev *dev, unsigned q)
{
	const struct tpu_queue *qu = &dev->q[q];
	return qu->depth - 1u - qu->inflight;
}

/* The weight FIFO's occupancy and tile types (dev->fifo_bf16, 256 tiles at most: FIFO_TILES is
 * an 8-bit field). */
static void fifo_push(tpu_dev *dev, bool bf16)
{
	uint32_t i = dev->fifo_occ;

	if (i < 256u && bf16)
		dev->fifo_bf16[i / 64u] |= 1ull << (i % 64u);
	dev->fifo_occ++;
}

static void fifo_pop(tpu_dev *dev)
{
	for (unsigned w = 0; w < 4; w++)
		dev->fifo_bf16[w] = (dev->fifo_bf16[w] >> 1) |
				    (w < 3 ? (dev->fifo_bf16[w + 1] & 1u) << 63 : 0);
	dev->fifo_occ--;
}

/* Finish in-flight command cid with cpl (status etc. filled by the caller). */
static void complete(tpu_dev *dev, struct tpu_queue *qu, uint16_t cid, struct tpu_cpl *cpl)
{
	struct tpu_cid_rec *r = &qu->rec[cid];

	cpl->cid = cid;
	cpl->user_tag = r->user_tag;
	r->state = TPU_CID_DONE;
	qu->inflight--;
	/* The weight FIFO is device-global; GEMM needs to know what is left in it. */
	if (cpl->status == 0) {
		if (r->opcode == TPU_OP_LOAD_WEIGHTS)
			fifo_push(dev, r->flags & TPU_SQE_FLAG_BF16);
		else if (r->opcode == TPU_OP_MATMUL && (r->op0 & TPU_MATMUL_POP) && dev->fifo_occ)
			fifo_pop(dev);
	}
	qu->stash[qu->stash_n++] = *cpl;
}

void tpu_queue_abort_inflight(tpu_dev *dev, unsigned q)
{
	struct tpu_queue *qu = &dev->q[q];

	/* Oldest first; a command whose CQE was lost to a bogus entry is among them. */
	while (qu->inflight) {
		struct tpu_cpl cpl = { 0 };
		uint32_t oldest = 0;
		uint64_t best = UINT64_MAX;

		for (uint32_t c = 0; c < qu->cid_space; c++) {
			if (qu->rec[c].state == TPU_CID_INFLIGHT && qu->rec[c].seq < best) {
				best = qu->rec[c].seq;
				oldest = c;
			}
		}
		cpl.sq_id = (uint16_t)q;
		cpl.status = (uint16_t)TPU_STATUS(TPU_SC_ABORTED_RESET, 0);
		complete(dev, qu, (uint16_t)oldest, &cpl);
	}
}

int tpu_queue_health(tpu_dev *dev, unsigned q)
{
	/* One register read (a link round trip, on the submit path): Q_STATUS.ACTIVE is CSTS.RDY
	 * (so no CFS) and the queue configured and not broken (docs/spec.md, Q_STATUS). */
	uint32_t qs = tpu_rd(dev, TPU_REG_Q_STATUS(q));

	if (qs == 0xFFFFFFFFu)
		return -ENODEV;
	return (qs & TPU_Q_STATUS_ACTIVE_MASK) ? 0 : -EIO;
}

static int alloc_cid(struct tpu_queue *qu, uint16_t *cid)
{
	for (uint32_t i = 0; i < qu->cid_space; i++) {
		uint32_t c = (qu->cid_next + i) % qu->cid_space;
		if (qu->rec[c].state == TPU_CID_FREE) {
			qu->cid_next = (c + 1) % qu->cid_space;
			*cid = (uint16_t)c;
			return 0;
		}
	}
	return -EAGAIN;
}

/* The buffer holding [addr, addr + len), or -EINVAL. DMA outside this device's own buffers
 * (another device's buffer, a freed one, the rings) would let the device scribble over memory
 * the caller does not own. */
static int span_buffer(tpu_dev *dev, uint64_t addr, uint64_t len, struct tpu_buf **buf)
{
	*buf = tpu_buf_find(dev, addr, len);
	return *buf ? 0 : -EINVAL;
}

/* The buffers holding a command's DMA spans: HOST_ADDR's (NULL for a command without DMA,
 * HOST_ADDR 0) and, for a STREAM_MATMUL with OP0.WRITE_BACK, the write-back region at
 * HOST_ADDR2 (C x R rows of COLS bytes, docs/spec.md 6.11; NULL otherwise: HOST_ADDR2 must be 0
 * there, which the device checks before any DMA). */
static int cmd_buffers(tpu_dev *dev, const struct tpu_cmd *cmd, struct tpu_buf **buf,
		       struct tpu_buf **buf2)
{
	uint64_t addr = SQE(cmd, HOST_ADDR_LO) | ((uint64_t)SQE(cmd, HOST_ADDR_HI) << 32);
	uint64_t addr2 = SQE(cmd, HOST_ADDR2_LO) | ((uint64_t)SQE(cmd, HOST_ADDR2_HI) << 32);
	int err;

	*buf = NULL;
	*buf2 = NULL;
	if (addr && (err = span_buffer(dev, addr, SQE(cmd, LENGTH), buf)))
		return err;
	if (SQE(cmd, OPCODE) != TPU_OP_STREAM_MATMUL ||
	    !(SQE(cmd, OP0) & TPU_STREAM_MATMUL_WRITE_BACK))
		return 0;
	return span_buffer(dev, addr2, (uint64_t)SQE(cmd, OP2) * SQE(cmd, OP1) * SQE(cmd, COLS),
			   buf2);
}

int tpu_queue_submit(tpu_dev *dev, unsigned q, struct tpu_cmd *cmds, unsigned n)
{
	struct tpu_queue *qu = &dev->q[q];
	int err;

	if (n > qu->depth - 1u)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		struct tpu_buf *b, *b2;
		err = cmd_buffers(dev, &cmds[i], &b, &b2);
		if (err)
			return err;
	}
	err = tpu_queue_health(dev, q);
	if (err)
		return err;
	if (n > tpu_queue_free_slots(dev, q) || n > qu->cid_space - qu->cids_used)
		return -EAGAIN;
	for (unsigned i = 0; i < n; i++) {
		struct tpu_cmd *c = &cmds[i];
		struct tpu_cid_rec *r;
		uint16_t cid = 0;

		(void)alloc_cid(qu, &cid); /* cannot fail: counted above */
		c->dw[TPU_SQE_CID_DW] = (c->dw[TPU_SQE_CID_DW] &
					 ~(TPU_SQE_CID_MASK << TPU_SQE_CID_SHIFT)) |
					((uint32_t)cid << TPU_SQE_CID_SHIFT);
		r = &qu->rec[cid];
		r->state = TPU_CID_INFLIGHT;
		r->seq = qu->seq++;
		r->opcode = (uint8_t)SQE(c, OPCODE);
		r->op0 = SQE(c, OP0);
		r->flags = (uint8_t)SQE(c, FLAGS);
		r->user_tag = SQE(c, USER_TAG);
		(void)cmd_buffers(dev, c, &r->buf, &r->buf2);
		if (r->buf)
			r->buf->refs++;
		if (r->buf2)
			r->buf2->refs++;
		qu->cids_used++;
		memcpy(qu->sq + (size_t)qu->sq_tail * TPU_SQE_BYTES, c->dw, TPU_SQE_BYTES);
		qu->sq_tail = (qu->sq_tail + 1u) % qu->depth;
		qu->inflight++;
	}
	tpu_wr(dev, TPU_REG_SQ_TAIL_DB(q), qu->sq_tail);
	return (int)n;
}

static int cqe_valid(const struct tpu_queue *qu, unsigned q, const uint32_t *dw)
{
	if (GET(dw, SQ_ID) != q)
		return 0;
	return GET(dw, CID) < qu->cid_space && qu->rec[GET(dw, CID)].state == TPU_CID_INFLIGHT;
}

/* Whether the entry at the head carries the current phase, i.e. the device's write of it (phase
 * dword last) has reached host memory. */
static bool cqe_landed(const struct tpu_queue *qu)
{
	const volatile uint32_t *dw = (const volatile uint32_t *)(qu->cq +
		(size_t)qu->cq_head * TPU_CQE_BYTES);
	return ((dw[TPU_CQE_PHASE_DW] >> TPU_CQE_PHASE_SHIFT) & TPU_CQE_PHASE_MASK) == qu->phase;
}

/* A wait loop's step: clock the device on, unless the CQ's head entry landed while the loop's
 * register reads (the reap's CQ_TAIL, a health check) were on the link: then the loop scans
 * again first, or it would notice the entry only after the next slice (a backend with watch
 * ends a slice when an entry lands, but not one that landed before the slice). Not twice in a
 * row: an entry that never becomes reapable must not keep the device from running. */
static void advance_or_rescan(tpu_dev *dev, const struct tpu_queue *qu, bool *rescan)
{
	*rescan = !*rescan && cqe_landed(qu);
	if (!*rescan)
		tpu_dev_advance(dev, true);
}

int tpu_queue_reap(tpu_dev *dev, unsigned q)
{
	struct tpu_queue *qu = &dev->q[q];
	uint32_t tail, avail, consumed = 0;
	int moved = 0;

	tail = tpu_rd(dev, TPU_REG_Q_CQ_TAIL(q));
	if (tail == 0xFFFFFFFFu)
		return -ENODEV;
	tail &= 0xFFFFu;
	if (tail >= qu->depth)
		return 0; /* not a tail this ring can have: trust nothing */
	avail = (tail + qu->depth - qu->cq_head) % qu->depth;
	for (; consumed < avail && cqe_landed(qu); consumed++) {
		uint32_t dw[4];
		memcpy(dw, qu->cq + (size_t)qu->cq_head * TPU_CQE_BYTES, sizeof(dw));
		if (cqe_valid(qu, q, dw)) {
			struct tpu_cpl cpl = { 0 };
			cpl.result = dw[TPU_CQE_RESULT_DW];
			cpl.sq_id = (uint16_t)q;
			cpl.sq_head = (uint16_t)GET(dw, SQ_HEAD);
			cpl.status = (uint16_t)TPU_STATUS(GET(dw, SC), GET(dw, SCT));
			cpl.dnr = (uint8_t)GET(dw, DNR);
			complete(dev, qu, (uint16_t)GET(dw, CID), &cpl);
			moved++;
		} else {
			dev->bogus++;
		}
		qu->cq_head = (qu->cq_head + 1u) % qu->depth;
		if (qu->cq_head == 0)
			qu->phase ^= 1u;
	}
	if (consumed)
		tpu_wr(dev, TPU_REG_CQ_HEAD_DB(q), qu->cq_head);
	return moved;
}

/* Hand a stashed completion to the caller: the CID and the buffer are free again. */
static void release(struct tpu_queue *qu, const struct tpu_cpl *cpl)
{
	struct tpu_cid_rec *r = &qu->rec[cpl->cid];

	if (r->buf && r->buf->refs)
		r->buf->refs--;
	if (r->buf2 && r->buf2->refs)
		r->buf2->refs--;
	memset(r, 0, sizeof(*r));
	qu->cids_used--;
}

static unsigned deliver(struct tpu_queue *qu, struct tpu_cpl *out, unsigned max)
{
	unsigned n = qu->stash_n < max ? qu->stash_n : max;

	for (unsigned i = 0; i < n; i++) {
		out[i] = qu->stash[i];
		release(qu, &out[i]);
	}
	memmove(qu->stash, qu->stash + n, (qu->stash_n - n) * sizeof(*qu->stash));
	qu->stash_n -= n;
	return n;
}

int tpu_queue_take(tpu_dev *dev, unsigned q, uint16_t cid, struct tpu_cpl *out)
{
	struct tpu_queue *qu = &dev->q[q];

	for (uint32_t i = 0; i < qu->stash_n; i++) {
		if (qu->stash[i].cid != cid)
			continue;
		*out = qu->stash[i];
		release(qu, out);
		memmove(qu->stash + i, qu->stash + i + 1,
			(qu->stash_n - i - 1) * sizeof(*qu->stash));
		qu->stash_n--;
		return 1;
	}
	return 0;
}

int tpu_submit(tpu_dev *dev, unsigned q, struct tpu_cmd *cmds, unsigned n)
{
	if (!queue_ok(dev, q) || !cmds || n == 0)
		return -EINVAL;
	return tpu_queue_submit(dev, q, cmds, n);
}

int tpu_poll(tpu_dev *dev, unsigned q, struct tpu_cpl *out, unsigned max)
{
	int err;

	if (!queue_ok(dev, q) || !out)
		return -EINVAL;
	err = tpu_queue_reap(dev, q);
	if (err < 0)
		return err;
	return (int)deliver(&dev->q[q], out, max);
}

int tpu_wait(tpu_dev *dev, unsigned q, struct tpu_cpl *out, unsigned min, unsigned max,
	     int timeout_ms)
{
	struct tpu_queue *qu;
	uint64_t deadline;
	bool expired = false, rescan = false;
	int err;

	if (!queue_ok(dev, q) || !out || min > max)
		return -EINVAL;
	qu = &dev->q[q];
	if (min > qu->inflight + qu->stash_n)
		return -EINVAL; /* could never be satisfied */
	deadline = tpu_now_ms() + (timeout_ms > 0 ? (uint64_t)timeout_ms : 0u);
	for (;;) {
		err = tpu_queue_reap(dev, q);
		if (err < 0)
			return err;
		if (qu->stash_n >= min)
			return (int)deliver(qu, out, max);
		err = tpu_queue_health(dev, q);
		if (err)
			return err;
		/* After the deadline the device gets one last turn and the CQ one last scan. */
		if (expired)
			return -ETIMEDOUT;
		expired = timeout_ms >= 0 && tpu_now_ms() >= deadline;
		advance_or_rescan(dev, qu, &rescan);
	}
}

int tpu_queue_run(tpu_dev *dev, unsigned q, struct tpu_cmd *cmds, size_t n, struct tpu_cpl *out,
		  int timeout_ms, size_t *submitted)
{
	struct tpu_queue *qu = &dev->q[q];
	uint64_t deadline = tpu_now_ms() + (timeout_ms > 0 ? (uint64_t)timeout_ms : 0u);
	size_t sub = 0, done = 0;
	bool expired = false;
	int first = 0, err = 0;
	unsigned idle = 0;
	bool rescan = false;

	while (done < sub || (sub < n && !first)) {
		uint32_t room = tpu_queue_free_slots(dev, q);
		uint32_t cids = qu->cid_space - qu->cids_used;
		struct tpu_cpl cpl;
		size_t before;

		if (room > cids)
			room = cids;
		if (sub < n && !first && room) {
			unsigned batch = (unsigned)(n - sub < room ? n - sub : room);
			err = tpu_queue_submit(dev, q, cmds + sub, batch);
			if (err < 0)
				break;
			sub += batch;
			err = 0;
		}
		/* The CQ_TAIL read of a reap and the read of a health check are link round
		 * trips (~100 device cycles each on sim) that delay noticing the last completion:
		 * reap only once the head entry has landed (its phase bit, in host memory), and
		 * check the device's health on every 8th poll that found nothing (and before
		 * giving up on the timeout). */
		if (cqe_landed(qu)) {
			err = tpu_queue_reap(dev, q);
			if (err < 0)
				break;
			err = 0;
		}
		before = done;
		while (done < sub &&
		       tpu_queue_take(dev, q, (uint16_t)SQE(&cmds[done], CID), &cpl)) {
			if (cpl.status && !first)
				first = cpl.status;
			if (out)
				out[done] = cpl;
			done++;
		}
		if (done == sub && (sub == n || first))
			break;
		idle = done != before ? 0 : idle + 1;
		if ((expired || (idle && idle % 8 == 0)) && (err = tpu_queue_health(dev, q)))
			break;
		if (expired) {
			err = -ETIMEDOUT;
			break;
		}
		expired = timeout_ms >= 0 && tpu_now_ms() >= deadline;
		advance_or_rescan(dev, qu, &rescan);
	}
	if (submitted)
		*submitted = sub;
	return err ? err : first;
}

int tpu_run(tpu_dev *dev, struct tpu_cmd *cmds, unsigned n, struct tpu_cpl *out, int timeout_ms)
{
	if (!dev || !cmds || n == 0)
		return -EINVAL;
	return tpu_queue_run(dev, 0, cmds, n, out, timeout_ms, NULL);
}

unsigned tpu_outstanding(tpu_dev *dev, unsigned q)
{
	if (!queue_ok(dev, q))
		return 0;
	return dev->q[q].inflight + dev->q[q].stash_n;
}

uint64_t tpu_bogus_cqes(tpu_dev *dev)
{
	return dev ? dev->bogus : 0;
}
