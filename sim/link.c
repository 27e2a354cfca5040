/* The link model: see link.h. Four channels, each a FIFO in one direction:
 *   dreq  device beats -> packets on the d2h wire -> handled at the host when they arrive
 *   hcpl  completions built at the host -> beats available at the device after the latency
 *   mreq  host MMIO -> beats available at the device after the latency
 *   mcpl  device beats -> read results visible to the host after the latency
 * The d2h and h2d wires each serialise their bytes at the configured bandwidth (16 bytes of
 * header per packet, like a PCIe TLP). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"
#include "tpu/tpu_spec.h"

#define HDR_BYTES 16u
#define PAGE 4096u

struct d2h_pkt {
	uint8_t kind, tag;
	uint32_t len;
	uint64_t addr;
	uint64_t arrive_ps;
	uint32_t msi_data;
	uint8_t *data; /* MWR payload */
	bool bad;      /* protocol error: answer UR (MRD) or drop (MWR) */
};

struct cpl {
	bool active;
	uint8_t status;
	uint32_t len, nbeats, sent;
	uint64_t seq;
	uint64_t first_ps, beat_ps;
	uint8_t *data;
};

struct mreq {
	uint8_t write, tag;
	uint16_t addr;
	uint32_t wdata;
	uint64_t avail_ps;
};

enum { RD_FREE = 0, RD_WAIT, RD_DONE, RD_ABANDONED };

struct mrd {
	uint8_t state;
	uint16_t addr;
	uint32_t val;
	uint64_t done_ps;
	uint64_t after; /* dreq packets that reach the host before this read's answer */
};

struct tpu_link {
	struct tpu_link_cfg cfg;
	struct tpu_link_mem mem;
	FILE *log;
	uint64_t cycle, now_ps;
	uint64_t lat_ps;
	uint64_t frng, rrng; /* fault and reorder PRNG states */
	uint64_t hash;
	struct tpu_link_stats st;
	bool removed;
	uint64_t watch_lo[TPU_LINK_WATCH_SLOTS], watch_hi[TPU_LINK_WATCH_SLOTS];

	/* dreq side */
	uint64_t d2h_free_ps, d2h_last_arrive;
	uint64_t d2h_pushed, d2h_landed; /* packets sent / performed at the host */
	bool asm_active; /* an MWR is being assembled */
	struct d2h_pkt asm_pkt;
	uint32_t asm_beats;
	bool dreq_pending;
	uint64_t dreq_since;
	struct d2h_pkt *pq; /* FIFO of packets in flight to the host */
	size_t pq_head, pq_n, pq_cap;
	bool tag_busy[256];

	/* hcpl side */
	uint64_t h2d_free_ps, cpl_seq, cpl_last_first;
	struct cpl cpl[256];
	unsigned cpl_active;
	int hcpl_cur; /* tag presented and not yet accepted, or -1 */

	/* mreq / mcpl */
	struct mreq *mq;
	size_t mq_head, mq_n, mq_cap;
	struct mrd rd[256];
	unsigned rd_next;
	unsigned rd_out;

	/* G2 assertion */
	bool quiesced, cc_en, rdy_seen;
	uint64_t q_cycle;

	struct tpu_link_event *ev;
	size_t ev_n, ev_cap;
};

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void hash_u64(struct tpu_link *l, uint64_t v)
{
	for (int i = 0; i < 8; i++) {
		l->hash ^= (v >> (8 * i)) & 0xFFu;
		l->hash *= 0x100000001B3ull;
	}
}

static void hash_bytes(struct tpu_link *l, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		l->hash ^= p[i];
		l->hash *= 0x100000001B3ull;
	}
}

/* Bytes on a wire of bw bytes/us take this many ps (0 = unlimited). */
static uint64_t ser_ps(uint64_t bw, uint64_t bytes)
{
	return bw ? (bytes * 1000000ull + bw - 1) / bw : 0;
}

static void log_event(struct tpu_link *l, int kind, uint64_t addr, uint32_t len, uint32_t tag,
		      const char *what)
{
	if (l->ev_n == l->ev_cap) {
		size_t cap = l->ev_cap ? l->ev_cap * 2 : 64;
		struct tpu_link_event *n = realloc(l->ev, cap * sizeof(*n));
		if (!n)
			return; /* the counters still record it */
		l->ev = n;
		l->ev_cap = cap;
	}
	l->ev[l->ev_n++] = (struct tpu_link_event){ l->cycle, l->now_ps, kind, addr, len, tag };
	hash_u64(l, ((uint64_t)(uint32_t)kind << 32) ^ l->cycle ^ ((addr - l->cfg.addr_base) << 20));
	if (l->log)
		fprintf(l->log, "link: cycle %" PRIu64 " (%" PRIu64 " ps): %s %s addr 0x%" PRIx64
			" len %u tag %u\n", l->cycle, l->now_ps, kind >= 0 ? "fault" : "event",
			what ? what : tpu_link_fault_name(kind), addr, len, tag);
}

static void protocol_error(struct tpu_link *l, const char *what, uint64_t addr, uint32_t len,
			   uint32_t tag)
{
	l->st.protocol_errors++;
	log_event(l, -1, addr, len, tag, what);
}

/* Does rule f fire for an event at [addr, addr + len)? Counts the event when eligible. */
static bool rule_fires(struct tpu_link *l, struct tpu_link_fault *f, uint64_t addr, uint32_t len)
{
	uint64_t last = addr + (len ? len - 1u : 0u);

	if (last < f->lo || addr > f->hi)
		return false;
	f->seen++;
	if (f->nth)
		return f->seen == f->nth;
	if (f->ppm >= 1000000u)
		return true;
	return splitmix(&l->frng) % 1000000u < f->ppm;
}

/* First rule of kind k that fires (every rule of that kind counts the event). */
static struct tpu_link_fault *fires(struct tpu_link *l, int k, uint64_t addr, uint32_t len,
				    uint32_t tag)
{
	struct tpu_link_fault *hit = NULL;

	for (unsigned i = 0; i < l->cfg.nfaults; i++) {
		struct tpu_link_fault *f = &l->cfg.faults[i];
		if ((int)f->kind == k && rule_fires(l, f, addr, len) && !hit)
			hit = f;
	}
	if (hit) {
		l->st.faults_fired++;
		log_event(l, k, addr, len, tag, NULL);
	}
	return hit;
}

int tpu_link_add_fault(struct tpu_link *l, const struct tpu_link_fault *f)
{
	if (l->cfg.nfaults >= TPU_LINK_MAX_FAULTS)
		return -ENOSPC;
	l->cfg.faults[l->cfg.nfaults] = *f;
	l->cfg.faults[l->cfg.nfaults].seen = 0;
	l->cfg.nfaults++;
	return 0;
}

void tpu_link_set_log(struct tpu_link *l, FILE *f)
{
	l->log = f;
}

int tpu_link_create(const struct tpu_link_cfg *cfg, const struct tpu_link_mem *mem,
		    struct tpu_link **out)
{
	const char *what;
	struct tpu_link *l;

	if (!cfg || !mem || !out || tpu_link_cfg_check(cfg, &what))
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->cfg = *cfg;
	for (unsigned i = 0; i < l->cfg.nfaults; i++) {
		struct tpu_link_fault *f = &l->cfg.faults[i];
		f->seen = 0;
		/* Ranges are offsets into host memory: make them IOVAs (saturating). "Any address"
		 * stays any, and MMIO offsets stay offsets. */
		if (f->kind == TPU_FAULT_ALL_ONES || (f->lo == 0 && f->hi == UINT64_MAX))
			continue;
		f->lo = f->lo > UINT64_MAX - cfg->addr_base ? UINT64_MAX : f->lo + cfg->addr_base;
		f->hi = f->hi > UINT64_MAX - cfg->addr_base ? UINT64_MAX : f->hi + cfg->addr_base;
	}
	l->mem = *mem;
	l->lat_ps = (uint64_t)cfg->latency_ns * 1000u;
	l->frng = cfg->seed ^ 0x6661756c74ull;
	l->rrng = cfg->seed ^ 0x72656f72ull;
	l->hash = 0xCBF29CE484222325ull;
	l->hcpl_cur = -1;
	for (unsigned i = 0; i < TPU_LINK_WATCH_SLOTS; i++)
		l->watch_lo[i] = UINT64_MAX; /* (empty: lo > hi) */
	l->quiesced = true; /* no DMA before the first enable either */
	*out = l;
	return 0;
}

void tpu_link_destroy(struct tpu_link *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->pq_n; i++)
		free(l->pq[(l->pq_head + i) % l->pq_cap].data);
	free(l->asm_pkt.data);
	for (unsigned t = 0; t < 256; t++)
		free(l->cpl[t].data);
	free(l->pq);
	free(l->mq);
	free(l->ev);
	free(l);
}

/* ---------------------------------------------------------------- FIFOs */

static int pq_push(struct tpu_link *l, const struct d2h_pkt *p)
{
	if (l->pq_n == l->pq_cap) {
		size_t cap = l->pq_cap ? l->pq_cap * 2 : 16;
		struct d2h_pkt *n = malloc(cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < l->pq_n; i++)
			n[i] = l->pq[(l->pq_head + i) % l->pq_cap];
		free(l->pq);
		l->pq = n;
		l->pq_cap = cap;
		l->pq_head = 0;
	}
	l->pq[(l->pq_head + l->pq_n) % l->pq_cap] = *p;
	l->pq_n++;
	return 0;
}

static int mq_push(struct tpu_link *l, const struct mreq *m)
{
	if (l->mq_n == l->mq_cap) {
		size_t cap = l->mq_cap ? l->mq_cap * 2 : 16;
		struct mreq *n = malloc(cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < l->mq_n; i++)
			n[i] = l->mq[(l->mq_head + i) % l->mq_cap];
		free(l->mq);
		l->mq = n;
		l->mq_cap = cap;
		l->mq_head = 0;
	}
	l->mq[(l->mq_head + l->mq_n) % l->mq_cap] = *m;
	l->mq_n++;
	return 0;
}

/* ---------------------------------------------------------------- host side of dreq */

static void make_cpl(struct tpu_link *l, uint8_t tag, uint8_t status, uint32_t len,
		     uint8_t *data, uint64_t extra_ps)
{
	struct cpl *c = &l->cpl[tag];
	uint64_t beat = status == TPU_LINK_OK ? l->cfg.link_bytes : 0;
	uint64_t depart = l->now_ps > l->h2d_free_ps ? l->now_ps : l->h2d_free_ps;

	if (c->active) {
		/* Only possible after a protocol error (tag reused while busy): drop the old one. */
		free(c->data);
		c->active = false;
		l->cpl_active--;
		if (l->hcpl_cur == tag)
			l->hcpl_cur = -1;
	}
	c->active = true;
	c->status = status;
	c->len = len;
	c->nbeats = status == TPU_LINK_OK ? (len + l->cfg.link_bytes - 1) / l->cfg.link_bytes : 1;
	c->sent = 0;
	c->seq = l->cpl_seq++;
	c->data = data;
	c->beat_ps = ser_ps(l->cfg.bw_h2d, beat);
	l->h2d_free_ps = depart + ser_ps(l->cfg.bw_h2d, HDR_BYTES) + c->nbeats * c->beat_ps;
	c->first_ps = depart + ser_ps(l->cfg.bw_h2d, HDR_BYTES) + c->beat_ps + l->lat_ps + extra_ps;
	if (l->cfg.reorder && l->cfg.jitter_ns)
		c->first_ps += (splitmix(&l->rrng) % ((uint64_t)l->cfg.jitter_ns + 1)) * 1000u;
	/* In order unless reordering is allowed: never before the previous completion. */
	if (!l->cfg.reorder && c->first_ps < l->cpl_last_first)
		c->first_ps = l->cpl_last_first;
	l->cpl_last_first = c->first_ps;
	l->cpl_active++;
	hash_u64(l, ((uint64_t)tag << 40) ^ ((uint64_t)status << 32) ^ len);
}

static void host_mrd(struct tpu_link *l, struct d2h_pkt *p)
{
	uint8_t status = TPU_LINK_OK;
	uint64_t extra = 0;
	uint8_t *data = NULL;
	struct tpu_link_fault *f;

	bool drop, ur, ca, poison;

	l->st.mrd++;
	hash_u64(l, 0x4D5244ull ^ ((p->addr - l->cfg.addr_base) << 8) ^ p->len);
	/* Every rule sees every eligible event, so "@N" counts MRDs whatever else fired. */
	drop = fires(l, TPU_FAULT_DROP_CPL, p->addr, p->len, p->tag) != NULL;
	ur = fires(l, TPU_FAULT_UR_CPL, p->addr, p->len, p->tag) != NULL;
	ca = fires(l, TPU_FAULT_CA_CPL, p->addr, p->len, p->tag) != NULL;
	poison = fires(l, TPU_FAULT_POISON_CPL, p->addr, p->len, p->tag) != NULL;
	f = fires(l, TPU_FAULT_DELAY_CPL, p->addr, p->len, p->tag);
	if (drop) {
		l->tag_busy[p->tag] = false; /* the device will time the tag out */
		return;
	}
	status = ur ? TPU_LINK_UR : ca ? TPU_LINK_CA : poison ? TPU_LINK_POISON : TPU_LINK_OK;
	if (f)
		extra = f->delay_ns * 1000u;
	if (p->bad)
		status = TPU_LINK_UR;
	if (status == TPU_LINK_OK) {
		data = malloc(p->len);
		if (!data || l->mem.read(l->mem.ctx, p->addr, data, p->len)) {
			free(data);
			data = NULL;
			status = TPU_LINK_UR;
			l->st.mem_refused++;
			log_event(l, -2, p->addr, p->len, p->tag, "MRD refused by host memory");
		} else {
			l->st.rd_bytes += p->len;
			hash_bytes(l, data, p->len);
		}
	}
	make_cpl(l, p->tag, status, status == TPU_LINK_OK ? p->len : 0, data, extra);
}

static void host_mwr(struct tpu_link *l, struct d2h_pkt *p)
{
	l->st.mwr++;
	hash_u64(l, 0x4D5752ull ^ ((p->addr - l->cfg.addr_base) << 8) ^ p->len);
	if (p->bad)
		return;
	hash_bytes(l, p->data, p->len);
	if (l->mem.write(l->mem.ctx, p->addr, p->data, p->len)) {
		l->st.mem_refused++;
		log_event(l, -2, p->addr, p->len, 0, "MWR refused by host memory");
		return;
	}
	l->st.wr_bytes += p->len;
	for (unsigned i = 0; i < TPU_LINK_WATCH_SLOTS; i++) {
		if (p->len && l->watch_lo[i] <= l->watch_hi[i] && p->addr <= l->watch_hi[i] &&
		    p->addr + p->len - 1u >= l->watch_lo[i]) {
			l->st.watch_hits++;
			break;
		}
	}
}

static void host_msi(struct tpu_link *l, struct d2h_pkt *p)
{
	int times = 1;
	uint8_t b[4];

	l->st.msi++;
	hash_u64(l, 0x4D5349ull ^ ((p->addr - l->cfg.addr_base) << 8) ^ p->msi_data);
	bool drop = fires(l, TPU_FAULT_DROP_MSI, p->addr, 4, 0) != NULL;

	if (fires(l, TPU_FAULT_DUP_MSI, p->addr, 4, 0))
		times = 2;
	if (drop)
		return;
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(p->msi_data >> (8 * i));
	for (int i = 0; i < times; i++) {
		if (l->mem.write(l->mem.ctx, p->addr, b, 4)) {
			l->st.mem_refused++;
			log_event(l, -2, p->addr, 4, 0, "MSI refused by host memory");
		}
		l->st.irqs++;
	}
}

static void host_process(struct tpu_link *l)
{
	while (l->pq_n) {
		struct d2h_pkt *p = &l->pq[l->pq_head];
		if (p->arrive_ps > l->now_ps)
			break;
		if (!l->removed) {
			if (p->kind == TPU_LINK_MRD)
				host_mrd(l, p);
			else if (p->kind == TPU_LINK_MWR)
				host_mwr(l, p);
			else
				host_msi(l, p);
		}
		free(p->data);
		l->pq_head = (l->pq_head + 1) % l->pq_cap;
		l->pq_n--;
		l->d2h_landed++;
	}
}

/* ---------------------------------------------------------------- device side of dreq */

static void push_pkt(struct tpu_link *l, struct d2h_pkt *p, uint64_t end_ps)
{
	p->arrive_ps = end_ps + l->lat_ps;
	if (p->arrive_ps < l->d2h_last_arrive)
		p->arrive_ps = l->d2h_last_arrive; /* posted order: never pass an earlier packet */
	l->d2h_last_arrive = p->arrive_ps;
	if (pq_push(l, p)) {
		free(p->data);
		protocol_error(l, "host out of memory: packet lost", p->addr, p->len, p->tag);
		return;
	}
	l->d2h_pushed++;
}

static void check_span(struct tpu_link *l, const struct d2h_pkt *p, uint32_t max, const char *what)
{
	if (p->len == 0 || p->len > max || p->len > 8191u) {
		protocol_error(l, what, p->addr, p->len, p->tag);
		((struct d2h_pkt *)p)->bad = true;
	} else if ((p->addr & (PAGE - 1)) + p->len > PAGE) {
		protocol_error(l, "dreq crosses a 4 KiB boundary", p->addr, p->len, p->tag);
	}
}

static void dreq_beat(struct tpu_link *l, const struct tpu_link_out *o)
{
	uint32_t lb = l->cfg.link_bytes;
	uint64_t bytes, start, end;
	bool first = !l->asm_active;

	l->st.dreq_beats++;
	hash_u64(l, l->cycle ^ ((uint64_t)o->dreq_kind << 56) ^ ((uint64_t)o->dreq_tag << 48) ^
			    ((uint64_t)o->dreq_len << 32) ^ (o->dreq_last ? 1u : 0u));
	hash_u64(l, o->dreq_addr - l->cfg.addr_base);
	/* G2: a new packet started after the device was told to stop. */
	if (first && l->quiesced && l->dreq_since > l->q_cycle + l->cfg.reset_grace_cycles) {
		l->st.dma_after_reset++;
		log_event(l, -1, o->dreq_addr, o->dreq_len, o->dreq_tag, "dreq after reset/disable");
	}
	if (first && o->dreq_kind == TPU_LINK_MWR) {
		struct d2h_pkt *p = &l->asm_pkt;
		memset(p, 0, sizeof(*p));
		p->kind = TPU_LINK_MWR;
		p->tag = o->dreq_tag;
		p->len = o->dreq_len;
		p->addr = o->dreq_addr;
		check_span(l, p, l->cfg.max_payload, "MWR length outside 1..MaxPayload");
		p->data = calloc(1, p->len ? p->len : 1);
		if (!p->data)
			p->bad = true;
		l->asm_active = true;
		l->asm_beats = 0;
	}
	bytes = (first ? HDR_BYTES : 0) + (o->dreq_kind == TPU_LINK_MRD ? 0 : lb);
	start = l->now_ps > l->d2h_free_ps ? l->now_ps : l->d2h_free_ps;
	end = start + ser_ps(l->cfg.bw_d2h, bytes);
	l->d2h_free_ps = end;

	if (l->asm_active) {
		struct d2h_pkt *p = &l->asm_pkt;
		uint32_t off = l->asm_beats * lb;
		uint32_t nbeats = p->len ? (p->len + lb - 1) / lb : 1;
		if (o->dreq_kind != p->kind || o->dreq_len != p->len || o->dreq_addr != p->addr)
			protocol_error(l, "MWR header changed between beats", o->dreq_addr,
				       o->dreq_len, o->dreq_tag);
		if (p->data && !p->bad && off < p->len)
			memcpy(p->data + off, o->dreq_data, p->len - off < lb ? p->len - off : lb);
		l->asm_beats++;
		if ((l->asm_beats == nbeats) != (o->dreq_last != 0))
			protocol_error(l, "MWR last flag on the wrong beat", p->addr, p->len, p->tag);
		if (o->dreq_last || l->asm_beats >= nbeats) {
			l->asm_active = false;
			push_pkt(l, p, end);
			memset(p, 0, sizeof(*p));
		}
		return;
	}
	if (o->dreq_kind == TPU_LINK_MRD) {
		struct d2h_pkt p = { .kind = TPU_LINK_MRD, .tag = o->dreq_tag, .len = o->dreq_len,
				     .addr = o->dreq_addr };
		check_span(l, &p, l->cfg.max_read_req, "MRD length outside 1..MaxReadReq");
		if (!o->dreq_last)
			protocol_error(l, "MRD without last", p.addr, p.len, p.tag);
		if (p.tag >= l->cfg.tags || l->tag_busy[p.tag]) {
			protocol_error(l, "MRD tag out of range or in use", p.addr, p.len, p.tag);
			p.bad = true;
		}
		l->tag_busy[p.tag] = true;
		push_pkt(l, &p, end);
	} else if (o->dreq_kind == TPU_LINK_MSI) {
		struct d2h_pkt p = { .kind = TPU_LINK_MSI, .len = 4, .addr = o->dreq_addr };
		p.msi_data = (uint32_t)o->dreq_data[0] | (uint32_t)o->dreq_data[1] << 8 |
			     (uint32_t)o->dreq_data[2] << 16 | (uint32_t)o->dreq_data[3] << 24;
		if (!o->dreq_last)
			protocol_error(l, "MSI without last", p.addr, 4, 0);
		push_pkt(l, &p, end);
	} else {
		protocol_error(l, "dreq kind 3", o->dreq_addr, o->dreq_len, o->dreq_tag);
	}
}

/* ---------------------------------------------------------------- mreq / mcpl */

static void quiesce(struct tpu_link *l)
{
	if (!l->quiesced) {
		l->quiesced = true;
		l->q_cycle = l->cycle;
	}
	l->rdy_seen = false;
}

static void mreq_accepted(struct tpu_link *l, const struct mreq *m)
{
	hash_u64(l, l->cycle ^ ((uint64_t)m->write << 63) ^ ((uint64_t)m->addr << 40) ^
			    ((uint64_t)m->tag << 32) ^ m->wdata);
	if (!m->write)
		return;
	if (m->addr == TPU_REG_CC) {
		bool en = (m->wdata & TPU_CC_EN_MASK) != 0;
		if (!en)
			quiesce(l);
		else
			l->quiesced = false;
		l->cc_en = en;
	} else if (m->addr == TPU_REG_RESET && m->wdata == TPU_RESET_MAGIC) {
		quiesce(l);
		l->cc_en = false;
	}
}

static void mcpl_accepted(struct tpu_link *l, const struct tpu_link_out *o)
{
	struct mrd *r = &l->rd[o->mcpl_tag];

	hash_u64(l, l->cycle ^ ((uint64_t)o->mcpl_tag << 32) ^ o->mcpl_rdata);
	if (r->state != RD_WAIT && r->state != RD_ABANDONED) {
		protocol_error(l, "mcpl with a tag that is not outstanding", 0, 0, o->mcpl_tag);
		return;
	}
	if (r->addr == TPU_REG_CSTS) {
		if (o->mcpl_rdata & TPU_CSTS_RDY_MASK)
			l->rdy_seen = true;
		else if (l->rdy_seen)
			quiesce(l); /* the device stopped by itself (CFS) */
	}
	if (r->state == RD_ABANDONED) {
		r->state = RD_FREE;
		l->rd_out--;
		return;
	}
	r->state = RD_DONE;
	r->val = o->mcpl_rdata;
	r->done_ps = l->now_ps + l->lat_ps;
	/* PCIe order: a read completion never passes a write the device sent (or began) before it,
	 * so a host that reads a register has every earlier device write in memory */
	r->after = l->d2h_pushed + (l->asm_active ? 1u : 0u);
}

void tpu_link_mmio_write(struct tpu_link *l, uint16_t off, uint32_t val)
{
	struct mreq m = { .write = 1, .addr = off, .wdata = val };
	uint64_t depart = l->now_ps > l->h2d_free_ps ? l->now_ps : l->h2d_free_ps;

	if (l->removed)
		return;
	l->h2d_free_ps = depart + ser_ps(l->cfg.bw_h2d, HDR_BYTES + 4);
	m.avail_ps = l->h2d_free_ps + l->lat_ps;
	l->st.mmio_writes++;
	(void)mq_push(l, &m);
}

int tpu_link_mmio_read_start(struct tpu_link *l, uint16_t off)
{
	struct mreq m = { .write = 0, .addr = off };
	uint64_t depart;
	unsigned t;

	if (!l->removed && fires(l, TPU_FAULT_ALL_ONES, off, 4, 0)) {
		/* Surprise removal: whatever was on the wire is gone. */
		l->removed = true;
		free(l->asm_pkt.data);
		memset(&l->asm_pkt, 0, sizeof(l->asm_pkt));
		l->asm_active = false;
	}
	if (l->removed || l->rd_out >= 256)
		return -ENODEV;
	for (t = l->rd_next;; t = (t + 1) & 0xFFu)
		if (l->rd[t].state == RD_FREE)
			break;
	l->rd_next = (t + 1) & 0xFFu;
	l->rd[t] = (struct mrd){ .state = RD_WAIT, .addr = off };
	l->rd_out++;
	m.tag = (uint8_t)t;
	depart = l->now_ps > l->h2d_free_ps ? l->now_ps : l->h2d_free_ps;
	l->h2d_free_ps = depart + ser_ps(l->cfg.bw_h2d, HDR_BYTES);
	m.avail_ps = l->h2d_free_ps + l->lat_ps;
	l->st.mmio_reads++;
	if (mq_push(l, &m)) {
		l->rd[t].state = RD_FREE;
		l->rd_out--;
		return -ENOMEM;
	}
	return (int)t;
}

int tpu_link_mmio_read_done(struct tpu_link *l, int tag, uint32_t *val)
{
	struct mrd *r;

	if (tag < 0 || tag > 255)
		return 0;
	r = &l->rd[tag];
	if (r->state != RD_DONE || r->done_ps > l->now_ps || l->d2h_landed < r->after)
		return 0;
	*val = r->val;
	r->state = RD_FREE;
	l->rd_out--;
	return 1;
}

void tpu_link_mmio_read_abandon(struct tpu_link *l, int tag)
{
	if (tag < 0 || tag > 255 || l->rd[tag].state == RD_FREE)
		return;
	l->st.mmio_timeouts++;
	if (l->rd[tag].state == RD_DONE) {
		l->rd[tag].state = RD_FREE;
		l->rd_out--;
	} else {
		l->rd[tag].state = RD_ABANDONED;
	}
}

bool tpu_link_removed(const struct tpu_link *l)
{
	return l->removed;
}

/* ---------------------------------------------------------------- per cycle */

/* The completion whose beat goes next: the oldest available one, or with reordering a random
 * available one (only between packets of one tag, beats of a tag stay in order). */
static int pick_cpl(struct tpu_link *l)
{
	int pick = -1, n = 0;
	uint64_t best = UINT64_MAX, oldest = UINT64_MAX;
	unsigned seen = 0;
	int cand[256];

	/* One pass over the active completions (it ends at the last of them: called every cycle
	 * while one waits, a scan of all 256 tags would cost the simulation more than the link):
	 * the ready ones are the candidates, and the oldest of all is remembered. */
	for (unsigned t = 0; t < 256 && seen < l->cpl_active; t++) {
		struct cpl *c = &l->cpl[t];
		if (!c->active)
			continue;
		seen++;
		if (c->seq < oldest)
			oldest = c->seq;
		if (c->first_ps + (uint64_t)c->sent * c->beat_ps > l->now_ps)
			continue;
		cand[n++] = (int)t;
		if (c->seq < best) {
			best = c->seq;
			pick = (int)t;
		}
	}
	if (!l->cfg.reorder)
		/* In order: only the oldest completion may go, even if a later one is ready. */
		return best == oldest ? pick : -1;
	if (n > 1)
		pick = cand[splitmix(&l->rrng) % (uint64_t)n];
	return pick;
}

void tpu_link_drive(struct tpu_link *l, struct tpu_link_in *in)
{
	memset(in, 0, sizeof(*in));
	in->mcpl_ready = 1;
	in->dreq_ready = l->removed || l->now_ps >= l->d2h_free_ps;
	if (l->removed)
		return;
	if (l->mq_n && l->mq[l->mq_head].avail_ps <= l->now_ps) {
		const struct mreq *m = &l->mq[l->mq_head];
		in->mreq_valid = 1;
		in->mreq_write = m->write;
		in->mreq_tag = m->tag;
		in->mreq_addr = m->addr;
		in->mreq_wdata = m->wdata;
	}
	if (l->hcpl_cur < 0 && l->cpl_active)
		l->hcpl_cur = pick_cpl(l);
	if (l->hcpl_cur >= 0) {
		struct cpl *c = &l->cpl[l->hcpl_cur];
		uint32_t off = c->sent * l->cfg.link_bytes;
		in->hcpl_valid = 1;
		in->hcpl_tag = (uint8_t)l->hcpl_cur;
		in->hcpl_status = c->status;
		in->hcpl_last = c->sent + 1 == c->nbeats;
		if (c->data && off < c->len)
			memcpy(in->hcpl_data, c->data + off,
			       c->len - off < l->cfg.link_bytes ? c->len - off : l->cfg.link_bytes);
	}
}

void tpu_link_commit(struct tpu_link *l, const struct tpu_link_in *in,
		     const struct tpu_link_out *out)
{
	if (out->mcpl_valid && in->mcpl_ready && !l->removed)
		mcpl_accepted(l, out);
	if (in->mreq_valid && out->mreq_ready) {
		struct mreq m = l->mq[l->mq_head];
		l->mq_head = (l->mq_head + 1) % l->mq_cap;
		l->mq_n--;
		mreq_accepted(l, &m);
	}
	if (in->hcpl_valid && out->hcpl_ready) {
		struct cpl *c = &l->cpl[in->hcpl_tag];
		l->st.hcpl_beats++;
		hash_u64(l, l->cycle ^ ((uint64_t)in->hcpl_tag << 32) ^ c->sent);
		if (++c->sent == c->nbeats) {
			free(c->data);
			c->data = NULL;
			c->active = false;
			l->cpl_active--;
			l->tag_busy[in->hcpl_tag] = false;
		}
		l->hcpl_cur = -1;
	}
	if (out->dreq_valid && !l->dreq_pending) {
		l->dreq_pending = true;
		l->dreq_since = l->cycle;
	}
	if (out->dreq_valid && in->dreq_ready) {
		if (!l->removed)
			dreq_beat(l, out);
		l->dreq_pending = false;
	} else if (!out->dreq_valid) {
		l->dreq_pending = false;
	}
	l->cycle++;
	l->now_ps += l->cfg.clock_ps;
	l->st.cycles = l->cycle;
	host_process(l);
}

bool tpu_link_idle(const struct tpu_link *l)
{
	return !l->pq_n && !l->cpl_active && !l->mq_n && !l->rd_out && !l->asm_active;
}

const struct tpu_link_stats *tpu_link_stats(const struct tpu_link *l)
{
	return &l->st;
}

size_t tpu_link_events(const struct tpu_link *l, const struct tpu_link_event **ev)
{
	*ev = l->ev;
	return l->ev_n;
}

uint64_t tpu_link_trace_hash(const struct tpu_link *l)
{
	return l->hash;
}

int tpu_link_watch(struct tpu_link *l, unsigned slot, uint64_t lo, uint64_t hi)
{
	if (slot >= TPU_LINK_WATCH_SLOTS)
		return -EINVAL;
	l->watch_lo[slot] = lo;
	l->watch_hi[slot] = hi;
	return 0;
}

uint64_t tpu_link_cycle(const struct tpu_link *l)
{
	return l->cycle;
}
