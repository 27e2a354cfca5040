/* The "golden" backend: the bit-exact C model behind the driver's backend vtable. Its DMA port
 * is the host memory model, so the model reaches exactly the memory the driver allocated. */
#include <errno.h>
#include <stdlib.h>

#include "backend.h"
#include "golden.h"

/* Work done per advance call: enough to make progress, small enough that waits stay responsive. */
#define GOLDEN_CMDS_PER_ADVANCE 64u

/* The port lives as long as the model, whether or not golden_create copies it. */
struct golden_be {
	struct golden *g;
	struct golden_dma_port port;
};

static int golden_be_create(const struct tpu_backend_opts *opts, struct hostmem *hm, void **impl,
			    const char **what)
{
	struct golden_config cfg;
	struct golden_be *be;
	int err;

	if (opts->extra && opts->extra[0]) {
		/* The golden model has no options of its own. */
		*what = opts->extra;
		return -EINVAL;
	}
	golden_config_default(&cfg);
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
