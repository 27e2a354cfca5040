/* DMA windows: the driver keeps a shadow of every window so that tpu_reset can restore them.
 * A window register write takes effect at the device's next command boundary (docs/spec.md
 * section 5): every command submitted before it completes with the old windows, and CSTS.WPEND
 * reads 1 until then. Clearing VALID is therefore the invalidation: once WPEND reads 0 again no
 * access through the old window is left. The other writes are applied at once after that (the
 * driver submits nothing meanwhile), and the last WPEND = 0 says the new window is in effect. */
#include <errno.h>

#include "internal.h"

static int wait_applied(tpu_dev *dev)
{
	return tpu_dev_wait_csts(dev, TPU_CSTS_WPEND_MASK, 0, TPU_WINDOW_TIMEOUT_MS);
}

/* Write shadow window idx to the device: clear VALID first, because base and limit are only
 * writable while the window is not valid. */
int tpu_window_program(tpu_dev *dev, unsigned idx)
{
	const struct tpu_window *w = &dev->win[idx];
	uint64_t limit = w->base + w->len - 1;
	int err;

	tpu_wr(dev, TPU_REG_WIN_PERM(idx), 0);
	err = wait_applied(dev);
	if (err || w->len == 0)
		return err;
	tpu_wr(dev, TPU_REG_WIN_BASE_LO(idx), (uint32_t)w->base);
	tpu_wr(dev, TPU_REG_WIN_BASE_HI(idx), (uint32_t)(w->base >> 32));
	tpu_wr(dev, TPU_REG_WIN_LIMIT_LO(idx), (uint32_t)limit);
	tpu_wr(dev, TPU_REG_WIN_LIMIT_HI(idx), (uint32_t)(limit >> 32));
	tpu_wr(dev, TPU_REG_WIN_PERM(idx),
	       TPU_WIN_PERM_VALID_MASK | ((w->perm & TPU_WIN_R) ? TPU_WIN_PERM_R_MASK : 0) |
		       ((w->perm & TPU_WIN_W) ? TPU_WIN_PERM_W_MASK : 0));
	return wait_applied(dev);
}

int tpu_window_set(tpu_dev *dev, unsigned idx, uint64_t base, uint64_t len, unsigned perm)
{
	if (!dev || idx >= dev->info.num_windows || (perm & ~(TPU_WIN_R | TPU_WIN_W)))
		return -EINVAL;
	/* [base, base + len) must not pass 2^64: the last byte is base + len - 1. */
	if (len && len - 1 > UINT64_MAX - base)
		return -EINVAL;
	if (tpu_dev_present(dev))
		return -ENODEV;
	dev->win[idx].base = len ? base : 0;
	dev->win[idx].len = len;
	dev->win[idx].perm = len ? perm : 0;
	return tpu_window_program(dev, idx);
}
