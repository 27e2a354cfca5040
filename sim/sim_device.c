/* Device model + link, clocked together (see sim_device.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_device.h"

struct tpu_sim {
	const struct tpu_sim_model *m;
	void *h;
	struct tpu_link *l;
	uint64_t assert_failures;
	uint64_t mmio_timeout;
};

int tpu_sim_create(const struct tpu_sim_model *m, const struct tpu_link_cfg *lc,
		   const struct tpu_link_mem *mem, uint64_t seed, const char *trace,
		   struct tpu_sim **out)
{
	struct tpu_link_cfg cfg;
	struct tpu_link_in in;
	struct tpu_link_out o;
	struct tpu_sim *s;
	int err;

	if (!m || !lc || !mem || !out)
		return -EINVAL;
	cfg = *lc;
	cfg.link_bytes = m->link_bytes;
	cfg.max_payload = m->max_payload;
	cfg.max_read_req = m->max_read_req;
	cfg.tags = m->tags;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->m = m;
	s->mmio_timeout = cfg.mmio_timeout_cycles ? cfg.mmio_timeout_cycles : 1000000u;
	err = tpu_link_create(&cfg, mem, &s->l);
	if (err)
		goto fail;
	err = m->create(m, seed, trace, &s->h);
	if (err)
		goto fail;
	/* Reset with the link idle; these cycles are not link time. An assertion that fires here
	 * (the state is random until the first reset edge) counts like any other: the RTL must
	 * not act on its random initial state. */
	memset(&in, 0, sizeof(in));
	for (unsigned i = 0; i < TPU_SIM_RESET_CYCLES; i++)
		if (m->step(s->h, 1, &in, &o))
			s->assert_failures++;
	*out = s;
	return 0;
fail:
	tpu_link_destroy(s->l);
	free(s);
	return err;
}

void tpu_sim_destroy(struct tpu_sim *s)
{
	if (!s)
		return;
	if (s->h)
		s->m->destroy(s->h);
	tpu_link_destroy(s->l);
	free(s);
}

void tpu_sim_cycle(struct tpu_sim *s)
{
	struct tpu_link_in in;
	struct tpu_link_out o;

	tpu_link_drive(s->l, &in);
	memset(&o, 0, sizeof(o));
	if (s->m->step(s->h, 0, &in, &o))
		s->assert_failures++;
	tpu_link_commit(s->l, &in, &o);
}

uint32_t tpu_sim_mmio_read(struct tpu_sim *s, uint32_t off)
{
	uint64_t limit = tpu_link_cycle(s->l) + s->mmio_timeout;
	uint32_t val;
	int tag;

	if (off > 0xFFFFu)
		return 0xFFFFFFFFu;
	tag = tpu_link_mmio_read_start(s->l, (uint16_t)off);
	if (tag < 0)
		return 0xFFFFFFFFu;
	for (;;) {
		tpu_sim_cycle(s);
		if (tpu_link_mmio_read_done(s->l, tag, &val))
			return val;
		if (tpu_link_cycle(s->l) >= limit) {
			tpu_link_mmio_read_abandon(s->l, tag);
			return 0xFFFFFFFFu;
		}
	}
}

void tpu_sim_mmio_write(struct tpu_sim *s, uint32_t off, uint32_t val)
{
	if (off > 0xFFFFu)
		return;
	tpu_link_mmio_write(s->l, (uint16_t)off, val);
}

static int advance(struct tpu_sim *s, uint64_t cycles, bool watch)
{
	const struct tpu_link_stats *st = tpu_link_stats(s->l);
	uint64_t irqs = st->irqs, hits = st->watch_hits;

	for (uint64_t i = 0; i < cycles; i++) {
		tpu_sim_cycle(s);
		if (st->irqs != irqs)
			return 1;
		if (watch && st->watch_hits != hits)
			return 2;
	}
	return 0;
}

int tpu_sim_advance(struct tpu_sim *s, uint64_t cycles)
{
	return advance(s, cycles, false);
}

int tpu_sim_advance_watch(struct tpu_sim *s, uint64_t cycles)
{
	return advance(s, cycles, true);
}

uint64_t tpu_sim_irq_count(const struct tpu_sim *s)
{
	return tpu_link_stats(s->l)->irqs;
}

uint64_t tpu_sim_cycles(const struct tpu_sim *s)
{
	return tpu_link_cycle(s->l);
}

uint64_t tpu_sim_assert_failures(const struct tpu_sim *s)
{
	return s->assert_failures;
}

struct tpu_link *tpu_sim_link(struct tpu_sim *s)
{
	return s->l;
}

const struct tpu_sim_model *tpu_sim_model_of(const struct tpu_sim *s)
{
	return s->m;
}

void *tpu_sim_model_handle(struct tpu_sim *s)
{
	return s->h;
}
