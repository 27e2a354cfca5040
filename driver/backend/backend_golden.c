/* The "golden" backend: the bit-exact C model behind the driver's backend vtable. Its DMA port
 * is the host memory model, so the model reaches exactly the memory the driver allocated. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "backend_opts.h"
#include "golden.h"

/* Work done per advance call: enough to make progress, small enough that waits stay responsive. */
#define GOLDEN_CMDS_PER_ADVANCE 64u

/* The port lives as long as the model, whether or not golden_create copies it. */
struct golden_be {
	struct golden *g;
	struct golden_dma_port port;
};

/* The message for a bad option value; static per thread like tpu_last_open_error. */
static _Thread_local char golden_what[96];

/* The golden model's own options, each 0 or 1: bf16 (the bf16 mode, spec 6.12), stream
 * (STREAM_MATMUL implemented, default 1) and round (the SINGLE and FLOAT requantization
 * roundings, FEATURES.ROUND, default 1). *what names a bad one. */
static int parse_extra(const char *extra, struct golden_config *cfg, const char **what)
{
	static const char *const keys[] = {"bf16", "stream", "round"};
	uint32_t *const fields[] = {&cfg->bf16, &cfg->stream_mm, &cfg->round};
	bool seen[3] = {false, false, false};
	const char *p = extra;
	struct tpu_opt_item it;

	while (tpu_opt_next(&p, &it)) {
		size_t k = 0;
		uint64_t v;

		while (k < 3 && !(it.has_value && tpu_opt_key_is(&it, keys[k])))
			k++;
		if (k == 3) {
			*what = it.item; /* not an option of the golden model */
			return -EINVAL;
		}
		if (seen[k]) {
			snprintf(golden_what, sizeof(golden_what), "'%s' given twice", keys[k]);
			*what = golden_what;
			return -EINVAL;
		}
		seen[k] = true;
		if (tpu_opt_parse_dec(it.value, it.vlen, 1, &v)) {
			snprintf(golden_what, sizeof(golden_what), "'%s': '%.*s' is not 0 or 1",
				 keys[k], it.vlen > 32 ? 32 : (int)it.vlen, it.value);
			*what = golden_what;
			return -EINVAL;
		}
		*fields[k] = (uint32_t)v;
	}
	return 0;
}

static int golden_be_create(const struct tpu_backend_opts *opts, struct hostmem *hm, void **impl,
			    const char **what)
{
	struct golden_config cfg;
	struct golden_be *be;
	int err;

	golden_config_default(&cfg);
	if (opts->extra && opts->extra[0]) {
		err = parse_extra(opts->extra, &cfg, what);
		if (err)
			return err;
	}
	if (opts->array_n)
		cfg.array_n = opts->array_n;
	if (opts->ub_rows)
		cfg.ub_rows = opts->ub_rows;
	if (opts->acc_rows)
		cfg.acc_rows = opts->acc_rows;
	if (opts->fifo_tiles)
		cfg.fifo_tiles = opts->fifo_tiles;
	if (opts->num_queues)
		cfg.num_queues = opts->num_queues;
	if (opts->num_windows)
		cfg.num_windows = opts->num_windows;
	if (opts->max_queue_entries)
		cfg.max_queue_entries = opts->max_queue_entries;
	err = golden_config_check(&cfg, what);
	if (err)
		return err;
	be = calloc(1, sizeof(*be));
	if (!be)
		return -ENOMEM;
	be->port.ctx = hm;
	be->port.read = hostmem_dma_read;
	be->port.write = hostmem_dma_write;
	err = golden_create(&cfg, &be->port, &be->g);
	if (err) {
		free(be);
		return err;
	}
	*impl = be;
	return 0;
}

static void golden_be_destroy(void *impl)
{
	struct golden_be *be = impl;
	golden_destroy(be->g);
	free(be);
}

static uint32_t golden_be_read(void *impl, uint32_t off)
{
	return golden_mmio_read(((struct golden_be *)impl)->g, off);
}

static void golden_be_write(void *impl, uint32_t off, uint32_t val)
{
	golden_mmio_write(((struct golden_be *)impl)->g, off, val);
}

static int golden_be_advance(void *impl)
{
	return golden_run(((struct golden_be *)impl)->g, GOLDEN_CMDS_PER_ADVANCE) > 0;
}

const struct tpu_backend_ops tpu_backend_golden = {
	.name = "golden",
	.create = golden_be_create,
	.destroy = golden_be_destroy,
	.mmio_read = golden_be_read,
	.mmio_write = golden_be_write,
	.advance = golden_be_advance,
};
