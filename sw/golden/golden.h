/* The golden device: a bit-exact C model of the tpu that executes the command set from the rings
 * in host memory, exactly as docs/spec.md specifies. It knows nothing of the driver: it sees only
 * BAR0 accesses and a DMA port into host memory, like the RTL. Not thread-safe per instance. */
#ifndef TPU_GOLDEN_H
#define TPU_GOLDEN_H

#include <stddef.h>
#include <stdint.h>

#include "tpu/tpu_spec.h"

/* Hardware parameters (HWCFG); golden_config_default() fills the spec's defaults. */
struct golden_config {
	uint32_t array_n;
	uint32_t ub_rows;
	uint32_t acc_rows;
	uint32_t fifo_tiles;
	uint32_t num_queues;
	uint32_t num_windows;
	uint32_t max_queue_entries;
	uint32_t bf16; /* 1 = the bf16 mode is built in (FEATURES.BF16); default 0 */
	/* 1 = STREAM_MATMUL is implemented (OPCODES bit 9; default); 0 as a device built without
	 * it (small FPGA builds, the bf16 sim model): INVALID_OPCODE */
	uint32_t stream_mm;
	/* 1 = the SINGLE and FLOAT requantization roundings (FEATURES.ROUND; default, as the
	 * pipelined activation of every sim model); 0 as a device with the serial activation
	 * (small FPGA builds): OUTPUT with OP0.ROUND != 0 is INVALID_FIELD */
	uint32_t round;
};

/* The device's view of host memory (a link / IOMMU): both return 0 or a negative errno when any
 * byte of [iova, iova + len) cannot be accessed; on failure nothing is guaranteed about partial
 * effects of a write, and a read's dst contents are unspecified. The device reports a failed read
 * (DMA_XFER_ERROR, SQ_FETCH_ERR) but ignores a failed write: writes to host memory are posted on
 * the link, so the RTL cannot see them fail either (docs/spec.md §5). */
struct golden_dma_port {
	void *ctx;
	int (*read)(void *ctx, uint64_t iova, void *dst, size_t len);
	int (*write)(void *ctx, uint64_t iova, const void *src, size_t len);
};

struct golden;

void golden_config_default(struct golden_config *cfg);
/* Check every field against the spec's limits. Returns 0 or -EINVAL; *what names the field. */
int golden_config_check(const struct golden_config *cfg, const char **what);

/* Create a device in its power-on state (CC.EN = 0). Returns 0, -EINVAL, -ENOMEM. */
int golden_create(const struct golden_config *cfg, const struct golden_dma_port *dma,
		  struct golden **out);
void golden_destroy(struct golden *g);

/* BAR0 access; offsets outside the map read 0 and ignore writes. A window register write first
 * runs every command the device can fetch (golden_run), as the RTL applies it only at a command
 * boundary (docs/spec.md section 5). */
uint32_t golden_mmio_read(struct golden *g, uint32_t off);
void golden_mmio_write(struct golden *g, uint32_t off, uint32_t val);

/* Let the device work: fetch and execute up to max_cmds commands (across queues, round robin).
 * Returns the number executed; 0 means idle (nothing to fetch, CQ full, or not ready). */
unsigned golden_run(struct golden *g, unsigned max_cmds);

#endif /* TPU_GOLDEN_H */
