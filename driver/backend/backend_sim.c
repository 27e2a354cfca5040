/* The "sim" backend: the Verilated RTL device behind the simulated link.
 *
 * URI: sim[:n=..,ub_rows=..,acc_rows=..,latency=NS,bw=GBPS,seed=S,faults=SPEC,trace=FILE.fst,
 *          reorder=0|1,jitter=NS,clock=MHZ,log=FILE,bf16=0|1]
 *   n          selects one of the built models (default: N=16 if built, else the smallest);
 *              the other hardware options must match the model's build
 *   bf16       1: the model with the bf16 mode (FEATURES.BF16, spec 6.12; built: n=8)
 *   latency    one-way link latency in ns (default 50)
 *   bw         bandwidth per direction in GB/s = bytes/ns, up to 3 decimals (default 16;
 *              0 = unlimited: one beat per cycle)
 *   clock      device clock in MHz (default 1000: one cycle = 1 ns)
 *   seed       seeds the device's random initial state and the link's decisions (default 1)
 *   faults     fault-injection rules, link.h tpu_link_parse_faults ("drop@3+msi_drop%0.5");
 *              their ~LO-HI ranges are offsets into the host arena
 *   reorder    1: completions of different tags may pass each other (seeded)
 *   jitter     with reorder: up to this many ns of extra completion delay
 *   trace      write an FST waveform of the device
 *   log        append the link's fault/assertion log to this file
 *
 * Interrupts: advance() clocks the device in slices and returns as soon as an MSI arrives (the
 * hint that a CQ has news); without one it returns after the slice, so the driver's scan of the
 * CQ is what finds completions either way (interrupts are hints, polling is the rule). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_opts.h"
#include "internal.h"
#include "sim_device.h"

/* Device cycles per advance call at most: long enough to move work forward; a call ends early
 * when a device write lands in a watched completion queue (sim_be_watch), so a wait notices a
 * completion in the cycle it lands, as a host spinning on the CQ does. */
#define SIM_ADVANCE_CYCLES 256u

struct sim_be {
	struct tpu_sim *sim;
	FILE *log;
	bool broken_said; /* the "RTL assertion failed" line was printed */
};

/* The message for an option that needs composing; static per thread like tpu_last_open_error. */
static _Thread_local char sim_what[160];

static int sim_available(char *msg, size_t len)
{
	if (tpu_sim_models(NULL, 0))
		return 1;
	snprintf(msg, len, "backend 'sim' has no Verilated device model in this build "
			   "(needs verilator and rtl/top/tpu_device.sv; see mk/sim.mk)");
	return 0;
}

static void model_list(char *buf, size_t len)
{
	const struct tpu_sim_model *list[TPU_SIM_MODELS_MAX];
	unsigned n = tpu_sim_models(list, TPU_SIM_MODELS_MAX);
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n && i < TPU_SIM_MODELS_MAX && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%sn=%u%s", i ? ", " : "",
					 list[i]->array_n, list[i]->bf16 ? " bf16=1" : "");
}

static const struct tpu_sim_model *pick_model(const struct tpu_backend_opts *o, uint32_t bf16,
					      const char **what)
{
	const struct tpu_sim_model *list[TPU_SIM_MODELS_MAX];
	const struct tpu_sim_model *m;
	unsigned n = tpu_sim_models(list, TPU_SIM_MODELS_MAX);
	char built[96];

	model_list(built, sizeof(built));
	if (n == 0) {
		*what = "n (no Verilated device model is built into this binary)";
		return NULL;
	}
	/* Without n: the int8 default is N = 16; "sim:bf16=1" is the first bf16 model listed
	 * (sim/sim_models.c: N = 8, the cheaper one to simulate), n=16 names the other. */
	m = o->array_n || !bf16 ? tpu_sim_model_find(o->array_n ? o->array_n : 16, bf16) : NULL;
	for (unsigned i = 0; !m && !o->array_n && i < n && i < TPU_SIM_MODELS_MAX; i++)
		if (list[i]->bf16 == bf16)
			m = list[i];
	if (!m) {
		if (o->array_n)
			snprintf(sim_what, sizeof(sim_what), "n=%u%s (built models: %s)", o->array_n,
				 bf16 ? " with bf16=1" : "", built);
		else
			snprintf(sim_what, sizeof(sim_what), "bf16=%u (built models: %s)", bf16,
				 built);
		*what = sim_what;
		return NULL;
	}
#define MATCH(field, name)                                                                    \
	if (o->field && o->field != m->field) {                                               \
		snprintf(sim_what, sizeof(sim_what), name "=%u (the n=%u model has %u)",      \
			 o->field, m->array_n, m->field);                                     \
		*what = sim_what;                                                             \
		return NULL;                                                                  \
	}
	MATCH(ub_rows, "ub_rows")
	MATCH(acc_rows, "acc_rows")
	MATCH(fifo_tiles, "fifo_tiles")
	MATCH(num_queues, "queues")
	MATCH(num_windows, "windows")
	MATCH(max_queue_entries, "max_queue_entries")
#undef MATCH
	return m;
}

/* "16", "0.5", "12.125" GB/s -> bytes per microsecond. */
static int parse_gbps(const char *s, size_t len, uint64_t *out)
{
	const char *dot = memchr(s, '.', len);
	size_t ilen = dot ? (size_t)(dot - s) : len;
	uint64_t ip = 0, frac = 0, scale = 1000;

	if (ilen && tpu_opt_parse_dec(s, ilen, 1000000, &ip))
		return -EINVAL;
	if (dot) {
		size_t flen = len - ilen - 1;
		if (flen == 0 || flen > 3)
			return -EINVAL;
		for (size_t i = 0; i < flen; i++) {
			if (dot[1 + i] < '0' || dot[1 + i] > '9')
				return -EINVAL;
			scale /= 10;
			frac += (uint64_t)(dot[1 + i] - '0') * scale;
		}
	} else if (!ilen) {
		return -EINVAL;
	}
	*out = ip * 1000u + frac; /* 0: unlimited */
	return 0;
}

struct sim_opts {
	struct tpu_link_cfg link;
	uint64_t seed;
	char trace[256];
	char log[256];
};

static int copy_str(char *dst, size_t cap, const char *s, size_t len)
{
	if (len == 0 || len >= cap)
		return -EINVAL;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

/* Parse the comma-separated extra options; *what points at the offending item. */
static int parse_extra(const char *extra, struct sim_opts *so, const char **what)
{
	const char *p = extra;
	struct tpu_opt_item it;

	while (tpu_opt_next(&p, &it)) {
		const char *v = it.value;
		size_t vlen = it.vlen;
		uint64_t x = 0;
		int err = -EINVAL;

		*what = it.item;
		if (!it.has_value) {
			/* fall through to the error */
		} else if (tpu_opt_key_is(&it, "latency")) {
			err = tpu_opt_parse_dec(v, vlen, 1000000, &x);
			so->link.latency_ns = (uint32_t)x;
		} else if (tpu_opt_key_is(&it, "bw")) {
			err = parse_gbps(v, vlen, &x);
			so->link.bw_d2h = so->link.bw_h2d = x;
		} else if (tpu_opt_key_is(&it, "clock")) {
			err = tpu_opt_parse_dec(v, vlen, 1000000, &x);
			if (!err && x == 0)
				err = -EINVAL;
			if (!err)
				so->link.clock_ps = (uint32_t)(1000000u / x ? 1000000u / x : 1u);
		} else if (tpu_opt_key_is(&it, "seed")) {
			err = tpu_opt_parse_dec(v, vlen, UINT64_MAX, &so->seed);
		} else if (tpu_opt_key_is(&it, "reorder")) {
			err = tpu_opt_parse_dec(v, vlen, 1, &x);
			so->link.reorder = x != 0;
		} else if (tpu_opt_key_is(&it, "jitter")) {
			err = tpu_opt_parse_dec(v, vlen, 1000000, &x);
			so->link.jitter_ns = (uint32_t)x;
		} else if (tpu_opt_key_is(&it, "faults")) {
			char spec[256];
			const char *bad;
			err = copy_str(spec, sizeof(spec), v, vlen);
			if (!err)
				err = tpu_link_parse_faults(&so->link, spec, &bad);
		} else if (tpu_opt_key_is(&it, "trace")) {
			err = copy_str(so->trace, sizeof(so->trace), v, vlen);
		} else if (tpu_opt_key_is(&it, "log")) {
			err = copy_str(so->log, sizeof(so->log), v, vlen);
		} else if (tpu_opt_key_is(&it, "bf16")) {
			err = tpu_opt_parse_dec(v, vlen, 1, &x); /* (read first: sim_bf16_opt) */
		}
		if (err)
			return -EINVAL;
	}
	return 0;
}

/* The bf16 option picks the model, so it is read before the others (parse_extra checks its
 * value): 1 when given as "bf16=1". */
static uint32_t sim_bf16_opt(const char *extra)
{
	const char *p = extra;
	struct tpu_opt_item it;
	uint32_t bf16 = 0;

	while (p && tpu_opt_next(&p, &it))
		if (tpu_opt_key_is(&it, "bf16") && it.has_value)
			bf16 = it.vlen == 1 && it.value[0] == '1';
	return bf16;
}

static int sim_be_create(const struct tpu_backend_opts *opts, struct hostmem *hm, void **impl,
			 const char **what)
{
	const struct tpu_sim_model *m;
	struct tpu_link_mem mem = { hm, hostmem_dma_read, hostmem_dma_write };
	struct sim_opts *so;
	struct sim_be *be;
	int err;

	m = pick_model(opts, sim_bf16_opt(opts->extra), what);
	if (!m)
		return -EINVAL;
	so = calloc(1, sizeof(*so));
	be = calloc(1, sizeof(*be));
	if (!so || !be) {
		err = -ENOMEM;
		goto out;
	}
	tpu_link_cfg_default(&so->link);
	so->seed = 1;
	err = parse_extra(opts->extra, so, what);
	if (err)
		goto out;
	so->link.seed = so->seed;
	so->link.addr_base = hostmem_iova_base(hm);
	if (so->log[0]) {
		be->log = fopen(so->log, "a");
		if (!be->log) {
			*what = "log (cannot open the file)";
			err = -EINVAL;
			goto out;
		}
	}
	err = tpu_sim_create(m, &so->link, &mem, so->seed, so->trace[0] ? so->trace : NULL,
			     &be->sim);
	if (err) {
		if (err == -EINVAL)
			*what = so->trace[0] ? "trace (cannot write the FST file, or tracing is not "
					       "built in)" : "link configuration";
		goto out;
	}
	if (be->log)
		tpu_link_set_log(tpu_sim_link(be->sim), be->log);
	*impl = be;
	be = NULL;
out:
	if (be && be->log)
		fclose(be->log);
	free(be);
	free(so);
	return err;
}

static void sim_be_destroy(void *impl)
{
	struct sim_be *be = impl;

	tpu_sim_destroy(be->sim);
	if (be->log)
		fclose(be->log);
	free(be);
}

/* An RTL assertion that fired means the model left its specified behaviour: from then on the
 * device reads as all-ones (gone), so every caller sees -ENODEV instead of results from a
 * broken model. Verilator has printed which assertion; this adds one line saying what follows. */
static bool sim_be_broken(struct sim_be *be)
{
	if (!tpu_sim_assert_failures(be->sim))
		return false;
	if (!be->broken_said) {
		fprintf(stderr, "sim: an RTL assertion failed (see above); the device now reads as "
				"removed (all-ones)\n");
		be->broken_said = true;
	}
	return true;
}

static uint32_t sim_be_read(void *impl, uint32_t off)
{
	struct sim_be *be = impl;
	uint32_t v = tpu_sim_mmio_read(be->sim, off);

	return sim_be_broken(be) ? 0xFFFFFFFFu : v;
}

static void sim_be_write(void *impl, uint32_t off, uint32_t val)
{
	tpu_sim_mmio_write(((struct sim_be *)impl)->sim, off, val);
}

static int sim_be_advance(void *impl)
{
	struct tpu_sim *s = ((struct sim_be *)impl)->sim;

	if (tpu_link_removed(tpu_sim_link(s)) || sim_be_broken(impl))
		return 0;
	(void)tpu_sim_advance_watch(s, SIM_ADVANCE_CYCLES);
	return 1;
}

static void sim_be_watch(void *impl, unsigned slot, uint64_t iova, uint64_t len)
{
	struct tpu_sim *s = ((struct sim_be *)impl)->sim;

	/* (a queue beyond the link's slots is not watched: its waits see completions at the end
	 * of a slice, as before) */
	if (len)
		(void)tpu_link_watch(tpu_sim_link(s), slot, iova, iova + len - 1u);
}

const struct tpu_backend_ops tpu_backend_sim = {
	.name = "sim",
	.available = sim_available,
	.create = sim_be_create,
	.destroy = sim_be_destroy,
	.mmio_read = sim_be_read,
	.mmio_write = sim_be_write,
	.advance = sim_be_advance,
	.watch = sim_be_watch,
};

struct tpu_sim *tpu_backend_sim_of(tpu_dev *dev)
{
	if (!dev || dev->ops != &tpu_backend_sim || !dev->impl)
		return NULL;
	return ((struct sim_be *)dev->impl)->sim;
}
