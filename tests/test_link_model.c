/* The link model (sim/link.c) against the C stand-in of the device side: latency, bandwidth,
 * ordering, tags and reordering, fault injection, determinism, the G2 assertion, protocol
 * checks. Expected times are computed here from the configuration (independent of the model's
 * code), with a small tolerance for pipeline cycles. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "link.h"
#include "link_standin.h"
#include "sim_device.h"
#include "tpu/tpu_spec.h"

#define MEM_BASE 0x10000ull
#define MEM_SIZE 0x10000u

struct fakemem {
	uint8_t buf[MEM_SIZE];
	struct tpu_link *l;
	unsigned nw;
	struct { uint64_t addr; uint32_t len; uint64_t cycle; } w[256];
};

static int fm_read(void *ctx, uint64_t iova, void *dst, size_t len)
{
	struct fakemem *m = ctx;
	if (iova < MEM_BASE || iova - MEM_BASE + len > MEM_SIZE)
		return -EFAULT;
	memcpy(dst, m->buf + (iova - MEM_BASE), len);
	return 0;
}

static int fm_write(void *ctx, uint64_t iova, const void *src, size_t len)
{
	struct fakemem *m = ctx;
	if (iova < MEM_BASE || iova - MEM_BASE + len > MEM_SIZE)
		return -EFAULT;
	memcpy(m->buf + (iova - MEM_BASE), src, len);
	if (m->nw < 256) {
		m->w[m->nw].addr = iova;
		m->w[m->nw].len = (uint32_t)len;
		m->w[m->nw].cycle = m->l ? tpu_link_cycle(m->l) : 0;
		m->nw++;
	}
	return 0;
}

struct rig {
	struct fakemem *mem;
	struct standin *dev;
	struct tpu_link *l;
};

static void rig_open(struct rig *r, const struct tpu_link_cfg *cfg)
{
	struct tpu_link_mem lm;

	r->mem = calloc(1, sizeof(*r->mem));
	r->dev = calloc(1, sizeof(*r->dev));
	ck_assert_ptr_nonnull(r->mem);
	ck_assert_ptr_nonnull(r->dev);
	for (unsigned i = 0; i < MEM_SIZE; i++)
		r->mem->buf[i] = (uint8_t)(i * 7u + (i >> 8));
	lm.ctx = r->mem;
	lm.read = fm_read;
	lm.write = fm_write;
	ck_assert_int_eq(tpu_link_create(cfg, &lm, &r->l), 0);
	r->mem->l = r->l;
	standin_init(r->dev, cfg->link_bytes, cfg->tags, cfg->seed);
}

static void rig_close(struct rig *r)
{
	tpu_link_destroy(r->l);
	free(r->mem);
	free(r->dev);
}

/* Enable the (stand-in) device so DMA is legal for the G2 assertion. */
static void rig_enable(struct rig *r)
{
	tpu_link_mmio_write(r->l, TPU_REG_CC, TPU_CC_EN_MASK);
	standin_run(r->l, r->dev, 2000, false);
	ck_assert(tpu_link_idle(r->l));
}

static void cfg_fast(struct tpu_link_cfg *c, uint32_t latency_ns)
{
	tpu_link_cfg_default(c);
	c->latency_ns = latency_ns;
	c->bw_d2h = c->bw_h2d = 0;
}

/* Wait for an MMIO read by clocking. Returns the value; *cycles gets the round trip. */
static uint32_t rig_read(struct rig *r, uint16_t off, uint64_t *cycles)
{
	uint64_t c0 = tpu_link_cycle(r->l);
	int tag = tpu_link_mmio_read_start(r->l, off);
	uint32_t v = 0;

	ck_assert_int_ge(tag, 0);
	for (int i = 0; i < 100000; i++) {
		if (tpu_link_mmio_read_done(r->l, tag, &v)) {
			if (cycles)
				*cycles = tpu_link_cycle(r->l) - c0;
			return v;
		}
		standin_run(r->l, r->dev, 1, false);
	}
	ck_abort_msg("MMIO read never completed");
	return 0;
}

START_TEST(test_link_mmio_latency)
{
	static const uint32_t lats[] = { 0, 10, 100, 1000 };
	for (unsigned i = 0; i < 4; i++) {
		struct tpu_link_cfg c;
		struct rig r;
		uint64_t cyc;
		cfg_fast(&c, lats[i]);
		rig_open(&r, &c);
		tpu_link_mmio_write(r.l, 0x100, 0xABCD1234u);
		ck_assert_uint_eq(rig_read(&r, 0x100, &cyc), 0xABCD1234u);
		/* Two one-way latencies plus the device's 2-cycle answer and the handshakes. */
		ck_assert_uint_ge(cyc, 2u * lats[i] + 2u);
		ck_assert_uint_le(cyc, 2u * lats[i] + 6u);
		ck_assert_uint_eq(rig_read(&r, TPU_REG_ID, NULL), TPU_ID);
		ck_assert_uint_eq(tpu_link_stats(r.l)->protocol_errors, 0);
		rig_close(&r);
	}
}
END_TEST

START_TEST(test_link_mrd_latency_and_data)
{
	struct tpu_link_cfg c;
	struct rig r;
	unsigned ops[4];
	static const uint32_t lens[4] = { 1, 31, 64, 512 };

	cfg_fast(&c, 100);
	rig_open(&r, &c);
	rig_enable(&r);
	for (unsigned i = 0; i < 4; i++)
		ops[i] = standin_mrd(r.dev, MEM_BASE + 0x1000u * (i + 1) + 3u * i, lens[i]);
	standin_run(r.l, r.dev, 10000, true);
	for (unsigned i = 0; i < 4; i++) {
		struct standin_op *o = &r.dev->ops[ops[i]];
		uint64_t rt = o->done_cycle - o->issue_cycle;
		ck_assert(o->done);
		ck_assert_int_eq(o->status, TPU_LINK_OK);
		ck_assert(!o->beat_error);
		ck_assert_uint_eq(o->got, lens[i]);
		ck_assert_mem_eq(o->data, r.mem->buf + (o->addr - MEM_BASE), lens[i]);
		ck_assert_uint_eq(o->beats_seen, (lens[i] + 31) / 32);
		ck_assert_uint_ge(rt, 200u);
		ck_assert_uint_le(rt, 200u + o->beats_seen + 8u);
	}
	ck_assert_uint_eq(tpu_link_stats(r.l)->mrd, 4);
	ck_assert_uint_eq(tpu_link_stats(r.l)->dma_after_reset, 0);
	ck_assert_uint_eq(tpu_link_stats(r.l)->protocol_errors, 0);
	rig_close(&r);
}
END_TEST

START_TEST(test_link_bandwidth_d2h)
{
	struct tpu_link_cfg c;
	struct rig r;
	uint8_t data[256];
	uint64_t expect, last;

	cfg_fast(&c, 10);
	c.bw_d2h = 1000; /* 1 byte/ns */
	rig_open(&r, &c);
	rig_enable(&r);
	memset(data, 0x5A, sizeof(data));
	uint64_t c0 = tpu_link_cycle(r.l);
	for (unsigned i = 0; i < 8; i++)
		standin_mwr(r.dev, MEM_BASE + 256u * i, data, 256);
	standin_run(r.l, r.dev, 100000, true);
	standin_run(r.l, r.dev, 100, false);
	ck_assert_uint_eq(r.mem->nw, 8);
	/* 8 packets x (16 header + 256 data) bytes at 1 byte/ns, + latency. */
	expect = 8u * (16u + 256u) + 10u;
	last = r.mem->w[7].cycle - c0;
	ck_assert_uint_ge(last, expect - 2u);
	ck_assert_uint_le(last, expect + 4u);
	for (unsigned i = 0; i < 8; i++)
		ck_assert_uint_eq(r.mem->w[i].addr, MEM_BASE + 256u * i);
	ck_assert_uint_eq(r.mem->buf[2047], 0x5A);
	rig_close(&r);
}
END_TEST

START_TEST(test_link_bandwidth_h2d)
{
	struct tpu_link_cfg c;
	struct rig r;
	unsigned op;

	cfg_fast(&c, 10);
	c.bw_h2d = 2000; /* 2 bytes/ns: a 32-byte beat every 16 ns */
	rig_open(&r, &c);
	rig_enable(&r);
	op = standin_mrd(r.dev, MEM_BASE + 0x2000u, 512);
	standin_run(r.l, r.dev, 100000, true);
	/* 20 ns of latency, 8 ns of header, 16 beats of 16 ns. */
	uint64_t rt = r.dev->ops[op].done_cycle - r.dev->ops[op].issue_cycle;
	ck_assert_uint_ge(rt, 20u + 8u + 16u * 16u - 2u);
	ck_assert_uint_le(rt, 20u + 8u + 16u * 16u + 6u);
	ck_assert_mem_eq(r.dev->ops[op].data, r.mem->buf + 0x2000u, 512);
	rig_close(&r);
}
END_TEST

START_TEST(test_link_posted_order_msi_after_data)
{
	struct tpu_link_cfg c;
	struct rig r;
	uint8_t data[100];

	tpu_link_cfg_default(&c); /* finite bandwidth: the long write takes longer to send */
	rig_open(&r, &c);
	rig_enable(&r);
	memset(data, 0x11, sizeof(data));
	standin_mwr(r.dev, MEM_BASE + 0x100, data, 100);
	standin_mwr(r.dev, MEM_BASE + 0x200, data, 16);
	standin_msi(r.dev, MEM_BASE + 0x300, 0xFEEDu);
	standin_run(r.l, r.dev, 10000, true);
	standin_run(r.l, r.dev, 500, false);
	ck_assert_uint_eq(r.mem->nw, 3);
	ck_assert_uint_eq(r.mem->w[0].addr, MEM_BASE + 0x100);
	ck_assert_uint_eq(r.mem->w[1].addr, MEM_BASE + 0x200);
	ck_assert_uint_eq(r.mem->w[2].addr, MEM_BASE + 0x300);
	ck_assert_uint_le(r.mem->w[0].cycle, r.mem->w[1].cycle);
	ck_assert_uint_le(r.mem->w[1].cycle, r.mem->w[2].cycle);
	ck_assert_uint_eq(tpu_link_stats(r.l)->irqs, 1);
	ck_assert_uint_eq(r.mem->buf[0x300], 0xED);
	ck_assert_uint_eq(r.mem->buf[0x301], 0xFE);
	rig_close(&r);
}
END_TEST

/* Issue 16 reads; returns whether completions finished out of issue order. */
static bool run_reads(struct tpu_link_cfg *c, uint64_t *hash)
{
	struct rig r;
	bool ooo = false;

	rig_open(&r, c);
	rig_enable(&r);
	for (unsigned i = 0; i < 16; i++)
		standin_mrd(r.dev, MEM_BASE + 0x100u * i, 64 + 32 * (i % 3));
	standin_run(r.l, r.dev, 100000, true);
	for (unsigned i = 0; i < 16; i++) {
		struct standin_op *o = &r.dev->ops[i];
		ck_assert(o->done);
		ck_assert(!o->beat_error);
		ck_assert_int_eq(o->status, 0);
		ck_assert_mem_eq(o->data, r.mem->buf + 0x100u * i, o->len);
		if (i && o->done_cycle < r.dev->ops[i - 1].done_cycle)
			ooo = true;
	}
	if (hash)
		*hash = tpu_link_trace_hash(r.l);
	rig_close(&r);
	return ooo;
}

START_TEST(test_link_tags_in_order_and_reordered)
{
	struct tpu_link_cfg c;
	unsigned reordered = 0;

	cfg_fast(&c, 50);
	ck_assert(!run_reads(&c, NULL));
	c.reorder = true;
	c.jitter_ns = 200;
	for (uint64_t s = 1; s <= 4; s++) {
		c.seed = harness_seed() + s;
		reordered += run_reads(&c, NULL);
	}
	ck_assert_uint_ge(reordered, 3);
}
END_TEST

START_TEST(test_link_tag_limit)
{
	struct tpu_link_cfg c;
	struct rig r;

	cfg_fast(&c, 100);
	c.tags = 4;
	rig_open(&r, &c);
	rig_enable(&r);
	for (unsigned i = 0; i < 12; i++)
		standin_mrd(r.dev, MEM_BASE + 0x40u * i, 32);
	standin_run(r.l, r.dev, 100000, true);
	/* Only 4 in flight: three waves of one round trip each. */
	ck_assert_uint_ge(r.dev->ops[11].done_cycle - r.dev->ops[0].issue_cycle, 3u * 200u);
	ck_assert_uint_eq(tpu_link_stats(r.l)->protocol_errors, 0);
	rig_close(&r);
}
END_TEST

static void fault_rig(struct rig *r, const char *spec)
{
	struct tpu_link_cfg c;
	const char *what;

	cfg_fast(&c, 20);
	ck_assert_int_eq(tpu_link_parse_faults(&c, spec, &what), 0);
	rig_open(r, &c);
	rig_enable(r);
}

START_TEST(test_link_fault_drop_ur_ca_poison)
{
	static const struct { const char *spec; int status; } cases[] = {
		{ "ur@2", TPU_LINK_UR }, { "ca@2", TPU_LINK_CA }, { "poison@2", TPU_LINK_POISON },
	};
	const struct tpu_link_event *ev;
	struct rig r;

	for (unsigned k = 0; k < 3; k++) {
		fault_rig(&r, cases[k].spec);
		for (unsigned i = 0; i < 3; i++)
			standin_mrd(r.dev, MEM_BASE + 0x100u * i, 64);
		standin_run(r.l, r.dev, 10000, true);
		ck_assert_int_eq(r.dev->ops[0].status, 0);
		ck_assert_int_eq(r.dev->ops[1].status, cases[k].status);
		ck_assert(r.dev->ops[1].done && !r.dev->ops[1].beat_error);
		ck_assert_int_eq(r.dev->ops[2].status, 0);
		ck_assert_uint_eq(tpu_link_stats(r.l)->faults_fired, 1);
		ck_assert_uint_eq(tpu_link_events(r.l, &ev), 1);
		ck_assert_uint_eq(ev[0].addr, MEM_BASE + 0x100u);
		ck_assert_uint_gt(ev[0].cycle, 0);
		rig_close(&r);
	}
	fault_rig(&r, "drop@2");
	for (unsigned i = 0; i < 3; i++)
		standin_mrd(r.dev, MEM_BASE + 0x100u * i, 64);
	standin_run(r.l, r.dev, 5000, false);
	ck_assert(r.dev->ops[0].done && !r.dev->ops[1].done && r.dev->ops[2].done);
	ck_assert_int_eq(tpu_link_events(r.l, &ev), 1);
	ck_assert_int_eq(ev[0].kind, TPU_FAULT_DROP_CPL);
	rig_close(&r);
}
END_TEST

START_TEST(test_link_fault_iova_range_and_probability)
{
	struct rig r;

	/* Only reads inside [0x13000, 0x13fff] are poisoned, every time. */
	fault_rig(&r, "poison~0x13000-0x13fff");
	for (unsigned i = 0; i < 6; i++)
		standin_mrd(r.dev, MEM_BASE + 0x1000u * i + 0x10u, 32);
	standin_run(r.l, r.dev, 10000, true);
	for (unsigned i = 0; i < 6; i++)
		ck_assert_int_eq(r.dev->ops[i].status, i == 3 ? TPU_LINK_POISON : TPU_LINK_OK);
	rig_close(&r);

	/* Probability 0.5 over 60 reads: some but not all. */
	fault_rig(&r, "ur%0.5");
	for (unsigned i = 0; i < 60; i++)
		standin_mrd(r.dev, MEM_BASE + 0x40u * i, 32);
	standin_run(r.l, r.dev, 100000, true);
	unsigned ur = 0;
	for (unsigned i = 0; i < 60; i++)
		ur += r.dev->ops[i].status == TPU_LINK_UR;
	ck_assert_uint_gt(ur, 10);
	ck_assert_uint_lt(ur, 50);
	ck_assert_uint_eq(tpu_link_stats(r.l)->faults_fired, ur);
	rig_close(&r);
}
END_TEST

START_TEST(test_link_fault_delay)
{
	struct rig r, base;

	fault_rig(&base, "delay=700@5"); /* never reached */
	fault_rig(&r, "delay=700@1");
	standin_mrd(base.dev, MEM_BASE, 64);
	standin_mrd(r.dev, MEM_BASE, 64);
	standin_run(base.l, base.dev, 10000, true);
	standin_run(r.l, r.dev, 10000, true);
	uint64_t d0 = base.dev->ops[0].done_cycle - base.dev->ops[0].issue_cycle;
	uint64_t d1 = r.dev->ops[0].done_cycle - r.dev->ops[0].issue_cycle;
	ck_assert_uint_eq(d1, d0 + 700u);
	rig_close(&r);
	rig_close(&base);
}
END_TEST

START_TEST(test_link_fault_msi_drop_dup)
{
	struct rig r;

	fault_rig(&r, "msi_drop@1+msi_dup@2");
	standin_msi(r.dev, MEM_BASE + 0x40, 1);
	standin_msi(r.dev, MEM_BASE + 0x44, 2);
	standin_msi(r.dev, MEM_BASE + 0x48, 3);
	standin_run(r.l, r.dev, 10000, true);
	standin_run(r.l, r.dev, 200, false);
	/* First lost, second twice, third once. */
	ck_assert_uint_eq(tpu_link_stats(r.l)->irqs, 3);
	ck_assert_uint_eq(tpu_link_stats(r.l)->msi, 3);
	ck_assert_uint_eq(r.mem->nw, 3);
	ck_assert_uint_eq(r.mem->w[0].addr, MEM_BASE + 0x44);
	ck_assert_uint_eq(r.mem->w[1].addr, MEM_BASE + 0x44);
	ck_assert_uint_eq(r.mem->w[2].addr, MEM_BASE + 0x48);
	rig_close(&r);
}
END_TEST

START_TEST(test_link_fault_all_ones)
{
	struct rig r;

	fault_rig(&r, "allones@3");
	ck_assert_uint_eq(rig_read(&r, TPU_REG_ID, NULL), TPU_ID);
	ck_assert_uint_eq(rig_read(&r, TPU_REG_ID, NULL), TPU_ID);
	ck_assert_int_eq(tpu_link_mmio_read_start(r.l, TPU_REG_ID), -ENODEV);
	ck_assert(tpu_link_removed(r.l));
	ck_assert_int_eq(tpu_link_mmio_read_start(r.l, TPU_REG_CSTS), -ENODEV);
	/* The link carries nothing any more. */
	standin_mwr(r.dev, MEM_BASE, "x", 1);
	standin_run(r.l, r.dev, 500, false);
	ck_assert_uint_eq(r.mem->nw, 0);
	rig_close(&r);
}
END_TEST

START_TEST(test_link_mem_refused_is_ur)
{
	struct rig r;
	struct tpu_link_cfg c;

	cfg_fast(&c, 10);
	rig_open(&r, &c);
	rig_enable(&r);
	standin_mrd(r.dev, MEM_BASE + MEM_SIZE - 16u, 32); /* straddles the end */
	standin_mwr(r.dev, 0x100, "abcd", 4);
	standin_run(r.l, r.dev, 10000, true);
	standin_run(r.l, r.dev, 100, false);
	ck_assert_int_eq(r.dev->ops[0].status, TPU_LINK_UR);
	ck_assert_uint_eq(tpu_link_stats(r.l)->mem_refused, 2);
	ck_assert_uint_eq(r.mem->nw, 0);
	rig_close(&r);
}
END_TEST

static uint64_t replay(uint64_t seed, size_t *nev, uint64_t *cycles)
{
	struct tpu_link_cfg c;
	struct rig r;
	const char *what;
	const struct tpu_link_event *ev;
	uint64_t h;
	uint8_t d[300];

	tpu_link_cfg_default(&c);
	c.seed = seed;
	c.reorder = true;
	c.jitter_ns = 100;
	ck_assert_int_eq(tpu_link_parse_faults(&c, "ur%0.2+delay=50%0.3+msi_dup%0.5", &what), 0);
	rig_open(&r, &c);
	rig_enable(&r);
	memset(d, 3, sizeof(d));
	for (unsigned i = 0; i < 20; i++) {
		standin_mrd(r.dev, MEM_BASE + 0x200u * i, 32u + 17u * i);
		if (i % 4 == 0)
			standin_mwr(r.dev, MEM_BASE + 0x8000u + 0x100u * i, d, 200);
		if (i % 5 == 0)
			standin_msi(r.dev, MEM_BASE + 0xF000u, i);
	}
	standin_run(r.l, r.dev, 200000, true);
	*nev = tpu_link_events(r.l, &ev);
	*cycles = tpu_link_cycle(r.l);
	h = tpu_link_trace_hash(r.l);
	rig_close(&r);
	return h;
}

START_TEST(test_link_g5_deterministic_replay)
{
	uint64_t s = harness_seed();
	size_t n1, n2, n3;
	uint64_t c1, c2, c3;
	uint64_t h1 = replay(s, &n1, &c1), h2 = replay(s, &n2, &c2), h3 = replay(s + 1, &n3, &c3);

	ck_assert_uint_eq(h1, h2);
	ck_assert_uint_eq(n1, n2);
	ck_assert_uint_eq(c1, c2);
	ck_assert_uint_gt(n1, 0);
	ck_assert_uint_ne(h1, h3);
}
END_TEST

START_TEST(test_link_g2_assert_dma_after_disable)
{
	for (int misbehave = 0; misbehave < 2; misbehave++) {
		struct tpu_link_cfg c;
		struct rig r;

		cfg_fast(&c, 20);
		rig_open(&r, &c);
		r.dev->ignore_disable = misbehave;
		rig_enable(&r);
		standin_mwr(r.dev, MEM_BASE, "abcd", 4);
		standin_run(r.l, r.dev, 200, false);
		ck_assert(r.dev->ops[0].done);
		tpu_link_mmio_write(r.l, TPU_REG_CC, 0);
		standin_run(r.l, r.dev, 200, false);
		standin_mwr(r.dev, MEM_BASE + 4, "efgh", 4);
		standin_run(r.l, r.dev, 200, false);
		ck_assert_uint_eq(tpu_link_stats(r.l)->dma_after_reset, (uint64_t)misbehave);
		/* After re-enable DMA is legal again; a RESET stops it again. */
		rig_enable(&r);
		standin_run(r.l, r.dev, 200, false);
		ck_assert(r.dev->ops[1].done);
		tpu_link_mmio_write(r.l, TPU_REG_RESET, TPU_RESET_MAGIC);
		standin_run(r.l, r.dev, 200, false);
		standin_mrd(r.dev, MEM_BASE, 4);
		standin_run(r.l, r.dev, 200, false);
		ck_assert_uint_eq(tpu_link_stats(r.l)->dma_after_reset, 2u * (uint64_t)misbehave);
		rig_close(&r);
	}
}
END_TEST

START_TEST(test_link_g2_assert_before_enable)
{
	struct tpu_link_cfg c;
	struct rig r;

	cfg_fast(&c, 20);
	rig_open(&r, &c);
	standin_run(r.l, r.dev, 10, false);
	standin_msi(r.dev, MEM_BASE, 1);
	standin_run(r.l, r.dev, 100, true);
	ck_assert_uint_eq(tpu_link_stats(r.l)->dma_after_reset, 1);
	rig_close(&r);
}
END_TEST

START_TEST(test_link_protocol_checks)
{
	struct tpu_link_cfg c;
	struct rig r;

	cfg_fast(&c, 10);
	rig_open(&r, &c);
	rig_enable(&r);
	standin_mrd(r.dev, MEM_BASE + 0xFF0u, 64); /* crosses 4 KiB */
	standin_mrd(r.dev, MEM_BASE, 1024);        /* above MaxReadReq: answered UR */
	standin_run(r.l, r.dev, 10000, true);
	ck_assert_uint_eq(tpu_link_stats(r.l)->protocol_errors, 2);
	ck_assert_int_eq(r.dev->ops[1].status, TPU_LINK_UR);
	rig_close(&r);
}
END_TEST

START_TEST(test_link_hcpl_backpressure)
{
	struct tpu_link_cfg c;
	struct rig r;

	cfg_fast(&c, 10);
	c.reorder = true;
	rig_open(&r, &c);
	r.dev->hcpl_ready_ppm = 300000;
	rig_enable(&r);
	for (unsigned i = 0; i < 10; i++)
		standin_mrd(r.dev, MEM_BASE + 0x300u * i, 256);
	standin_run(r.l, r.dev, 100000, true);
	for (unsigned i = 0; i < 10; i++) {
		ck_assert(!r.dev->ops[i].beat_error);
		ck_assert_mem_eq(r.dev->ops[i].data, r.mem->buf + 0x300u * i, 256);
	}
	rig_close(&r);
}
END_TEST

START_TEST(test_link_fault_spec_parser)
{
	struct tpu_link_cfg c;
	const char *what;
	static const char *const bad[] = { "", "bogus", "delay", "delay=0", "drop@0", "ur%1.5",
					   "ca~5-1", "drop%0.1234567", "poison~0x10", "drop@3x",
					   "drop+", "msi_drop@" };

	tpu_link_cfg_default(&c);
	ck_assert_int_eq(tpu_link_parse_faults(&c, "drop@3+msi_drop%0.25~0x1000-0x1fff+delay=100",
					       &what), 0);
	ck_assert_uint_eq(c.nfaults, 3);
	ck_assert_int_eq(c.faults[0].kind, TPU_FAULT_DROP_CPL);
	ck_assert_uint_eq(c.faults[0].nth, 3);
	ck_assert_int_eq(c.faults[1].kind, TPU_FAULT_DROP_MSI);
	ck_assert_uint_eq(c.faults[1].ppm, 250000);
	ck_assert_uint_eq(c.faults[1].lo, 0x1000);
	ck_assert_uint_eq(c.faults[1].hi, 0x1fff);
	ck_assert_int_eq(c.faults[2].kind, TPU_FAULT_DELAY_CPL);
	ck_assert_uint_eq(c.faults[2].delay_ns, 100);
	ck_assert_uint_eq(c.faults[2].ppm, 1000000);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tpu_link_cfg_default(&c);
		ck_assert_msg(tpu_link_parse_faults(&c, bad[i], &what) == -EINVAL, "%s", bad[i]);
	}
	ck_assert_str_eq(tpu_link_fault_name(TPU_FAULT_ALL_ONES), "allones");
}
END_TEST

START_TEST(test_link_sim_device_standin)
{
	struct tpu_link_cfg c;
	struct fakemem *m = calloc(1, sizeof(*m));
	struct tpu_link_mem lm = { m, fm_read, fm_write };
	struct tpu_sim *s;
	const char *what;
	struct standin *d;

	cfg_fast(&c, 30);
	c.mmio_timeout_cycles = 500;
	ck_assert_int_eq(tpu_link_parse_faults(&c, "allones@4", &what), 0);
	ck_assert_int_eq(tpu_sim_create(&standin_model, &c, &lm, 1, NULL, &s), 0);
	d = tpu_sim_model_handle(s);
	tpu_sim_mmio_write(s, 0x200, 77);
	ck_assert_uint_eq(tpu_sim_mmio_read(s, 0x200), 77);
	ck_assert_uint_eq(tpu_sim_mmio_read(s, TPU_REG_ID), TPU_ID);
	ck_assert_uint_ge(tpu_sim_cycles(s), 2u * 2u * 30u);
	/* A read the device never answers times out to all-ones. */
	d->rd_delay = 1000000;
	ck_assert_uint_eq(tpu_sim_mmio_read(s, TPU_REG_ID), 0xFFFFFFFFu);
	ck_assert_uint_eq(tpu_link_stats(tpu_sim_link(s))->mmio_timeouts, 1);
	d->rd_delay = 2;
	/* The fourth read: surprise removal, immediately all-ones. */
	uint64_t c0 = tpu_sim_cycles(s);
	ck_assert_uint_eq(tpu_sim_mmio_read(s, TPU_REG_ID), 0xFFFFFFFFu);
	ck_assert_uint_eq(tpu_sim_cycles(s), c0);
	ck_assert_int_eq(tpu_sim_advance(s, 100), 0);
	ck_assert_uint_eq(tpu_sim_irq_count(s), 0);
	tpu_sim_destroy(s);
	/* The C stand-in cannot trace: a clear -EINVAL, nothing leaked. */
	ck_assert_int_eq(tpu_sim_create(&standin_model, &c, &lm, 1, "x.fst", &s), -EINVAL);
	free(m);
}
END_TEST

TPU_TEST_SUITE(link_model_suite)
static Suite *link_model_suite(void)
{
	Suite *s = suite_create("link_model");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_link_mmio_latency);
	tcase_add_test(tc, test_link_mrd_latency_and_data);
	tcase_add_test(tc, test_link_bandwidth_d2h);
	tcase_add_test(tc, test_link_bandwidth_h2d);
	tcase_add_test(tc, test_link_posted_order_msi_after_data);
	tcase_add_test(tc, test_link_tags_in_order_and_reordered);
	tcase_add_test(tc, test_link_tag_limit);
	tcase_add_test(tc, test_link_fault_drop_ur_ca_poison);
	tcase_add_test(tc, test_link_fault_iova_range_and_probability);
	tcase_add_test(tc, test_link_fault_delay);
	tcase_add_test(tc, test_link_fault_msi_drop_dup);
	tcase_add_test(tc, test_link_fault_all_ones);
	tcase_add_test(tc, test_link_mem_refused_is_ur);
	tcase_add_test(tc, test_link_g5_deterministic_replay);
	tcase_add_test(tc, test_link_g2_assert_dma_after_disable);
	tcase_add_test(tc, test_link_g2_assert_before_enable);
	tcase_add_test(tc, test_link_protocol_checks);
	tcase_add_test(tc, test_link_hcpl_backpressure);
	tcase_add_test(tc, test_link_fault_spec_parser);
	tcase_add_test(tc, test_link_sim_device_standin);
	suite_add_tcase(s, tc);
	return s;
}
