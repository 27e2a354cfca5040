/* The driver's view of a device backend: BAR0 access plus a way to let the device make progress.
 * Each backend (golden, sim, uart) implements these in driver/backend_<name>.c on top of its own
 * device API; everything above this line is backend-agnostic. */
#ifndef TPU_DRIVER_BACKEND_H
#define TPU_DRIVER_BACKEND_H

#include <stdint.h>

#include "hostmem.h"

struct tpu_backend_opts {
	/* Hardware parameters requested by the URI (0 = the backend's default). */
	uint32_t array_n, ub_rows, acc_rows, fifo_tiles, num_queues, num_windows, max_queue_entries;
	/* Backend-specific key=value options the generic parser did not know, comma-separated. */
	const char *extra;
};

struct tpu_backend_ops {
	const char *name;
	/* Create the device attached to host memory hm. Returns 0, -EINVAL (an option: *what names
	 * it), -ENOMEM. */
	int (*create)(const struct tpu_backend_opts *opts, struct hostmem *hm, void **impl,
		      const char **what);
	void (*destroy)(void *impl);
	uint32_t (*mmio_read)(void *impl, uint32_t off);
	void (*mmio_write)(void *impl, uint32_t off, uint32_t val);
	/* Let the device run for a bounded amount of work. Returns 1 if it may have made progress,
	 * 0 if it is idle. */
	int (*advance)(void *impl);
};

extern const struct tpu_backend_ops tpu_backend_golden;

#endif /* TPU_DRIVER_BACKEND_H */
