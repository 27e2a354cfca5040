/* The device's sticky error bits and its log of the last failing command. */
#include <errno.h>

#include "internal.h"

#define FIELD(v, R, F) (((v) & TPU_##R##_##F##_MASK) >> TPU_##R##_##F##_SHIFT)

int tpu_error_info(tpu_dev *dev, struct tpu_err_info *out)
{
	uint32_t l0, l1;

	if (!dev || !out)
		return -EINVAL;
	if (tpu_dev_present(dev))
		return -ENODEV;
	out->gstat = tpu_rd(dev, TPU_REG_GSTAT);
	out->csts = tpu_rd(dev, TPU_REG_CSTS);
	l0 = tpu_rd(dev, TPU_REG_ERRLOG0);
	l1 = tpu_rd(dev, TPU_REG_ERRLOG1);
	out->cid = (uint16_t)FIELD(l0, ERRLOG0, CID);
	out->opcode = (uint8_t)FIELD(l0, ERRLOG0, OPCODE);
	out->qid = (uint8_t)FIELD(l0, ERRLOG0, QID);
	out->status = (uint16_t)TPU_STATUS(FIELD(l1, ERRLOG1, SC), FIELD(l1, ERRLOG1, SCT));
	out->count = (uint16_t)FIELD(l1, ERRLOG1, COUNT);
	out->addr = tpu_rd(dev, TPU_REG_ERRLOG_ADDR_LO) |
		    (uint64_t)tpu_rd(dev, TPU_REG_ERRLOG_ADDR_HI) << 32;
	return 0;
}

int tpu_error_clear(tpu_dev *dev, uint32_t gstat_bits)
{
	if (!dev)
		return -EINVAL;
	if (tpu_dev_present(dev))
		return -ENODEV;
	tpu_wr(dev, TPU_REG_GSTAT, gstat_bits);
	tpu_wr(dev, TPU_REG_ERRLOG1, 0); /* any write clears COUNT */
	return 0;
}
