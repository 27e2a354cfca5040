/* Performance counters: 64-bit LO/HI pairs (LO first, so the pair is consistent). */
#include <errno.h>

#include "internal.h"

static uint64_t rd64(tpu_dev *dev, uint32_t lo)
{
	uint32_t l = tpu_rd(dev, lo);
	return l | (uint64_t)tpu_rd(dev, lo + 4u) << 32;
}

int tpu_perf_read(tpu_dev *dev, struct tpu_perf *out)
{
	uint64_t cycles;

	if (!dev || !out)
		return -EINVAL;
	/* PERF_CYCLES first: it counts until its read arrives, so the presence check (a link
	 * round trip) comes after it; a removed device reads all-ones there and fails it. */
	cycles = rd64(dev, TPU_REG_PERF_CYCLES_LO);
	if (tpu_dev_present(dev))
		return -ENODEV;
	out->cycles = cycles;
	out->mxu_busy_cycles = rd64(dev, TPU_REG_PERF_MXU_BUSY_LO);
	out->macs = rd64(dev, TPU_REG_PERF_MACS_LO);
	out->dma_read_bytes = rd64(dev, TPU_REG_PERF_DMA_RD_LO);
	out->dma_write_bytes = rd64(dev, TPU_REG_PERF_DMA_WR_LO);
	out->commands = tpu_rd(dev, TPU_REG_PERF_CMDS);
	out->errors = tpu_rd(dev, TPU_REG_PERF_ERRORS);
	return 0;
}

int tpu_perf_clear(tpu_dev *dev)
{
	if (!dev)
		return -EINVAL;
	if (tpu_dev_present(dev))
		return -ENODEV;
	tpu_wr(dev, TPU_REG_PERF_CTRL, 1);
	return 0;
}
