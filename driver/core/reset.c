/* Controller reset: the last rung of the recovery ladder. Everything the device held is gone
 * afterwards; the host side is rebuilt from the driver's own state (queue layout and the window
 * shadow), and every command that was in flight is completed by the driver as ABORTED_RESET. */
#include <errno.h>
#include <string.h>

#include "internal.h"

int tpu_reset(tpu_dev *dev)
{
	int err;

	if (!dev)
		return -EINVAL;
	if (tpu_dev_present(dev))
		return -ENODEV;
	/* Keep the real status of everything already posted: after the reset the CQ tail is 0. */
	for (unsigned q = 0; q < dev->info.num_queues; q++)
		(void)tpu_queue_reap(dev, q);
	tpu_wr(dev, TPU_REG_RESET, TPU_RESET_MAGIC);
	err = tpu_dev_wait_csts(dev, TPU_CSTS_RDY_MASK | TPU_CSTS_CFS_MASK, 0,
				TPU_CTRL_TIMEOUT_MS);
	if (err)
		return err;
	/* The device is quiet and writes no more CQEs: whatever was fetched or still queued is
	 * finished here, exactly once, in submission order. A command whose CQE raced with the
	 * reset reports ABORTED_RESET too: its effects may or may not have happened, which is what
	 * that status says. */
	for (unsigned q = 0; q < dev->info.num_queues; q++)
		tpu_queue_abort_inflight(dev, q);
	dev->fifo_occ = 0;
	memset(dev->fifo_bf16, 0, sizeof(dev->fifo_bf16));
	return tpu_dev_enable(dev);
}
