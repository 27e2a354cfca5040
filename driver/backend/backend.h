/* The driver's view of a device backend: BAR0 access plus a way to let the device make progress.
 * Each backend (golden, sim, uart) implements these in driver/backend_<name>.c on top of its own
 * device API; everything above this line is backend-agnostic. */
#ifndef TPU_DRIVER_BACKEND_H
#define TPU_DRIVER_BACKEND_H

#include <stddef.h>
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
	/* Optional (NULL: always available): 1 when
	 * the backend can be used in this build, else 0 with the reason in msg (e.g. "sim" without
	 * a Verilated model linked in). */
	int (*available)(char *msg, size_t len);
	/* Optional (NULL: nothing to do): the host polls [iova, iova + len) (completion queue
	 * slot); a model that clocks the device in slices may end a slice when a device write
	 * lands there, so a wait notices it at once, as a host spinning on it would. */
	void (*watch)(void *impl, unsigned slot, uint64_t iova, uint64_t len);
};

extern const struct tpu_backend_ops tpu_backend_golden;
extern const struct tpu_backend_ops tpu_backend_sim;
/* backend_uart.c: a board on a serial line (uart:PATH[@BAUD]) and the Verilated board behind an
 * in-process byte stream (uart-sim), one implementation of the framing and DMA service. */
extern const struct tpu_backend_ops tpu_backend_uart;
extern const struct tpu_backend_ops tpu_backend_uart_sim;

struct tpu_dev;
struct tpu_sim;
/* The simulated device behind dev (link statistics, interrupt count, cycles; sim_device.h),
 * or NULL when dev is not a "sim" device. For tests and tools. */
struct tpu_sim *tpu_backend_sim_of(struct tpu_dev *dev);

#endif /* TPU_DRIVER_BACKEND_H */
