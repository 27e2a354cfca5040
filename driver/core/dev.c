/* Device lifecycle: open (URI -> backend + host arena + queues), close, info, raw registers, and
 * the enable sequence shared with reset. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static _Thread_local char open_err[256];

/* Each device gets its own IOVA range so that a buffer of one device can never be mistaken for
 * one of another (tpu_submit checks every DMA span against the device's own buffers). This
 * counter is the library's only shared state; it is atomic, so opens may race. */
static atomic_uint iova_slot;
#define TPU_IOVA_SPACING (1ull << 36) /* above TPU_MEM_MAX */

const char *tpu_last_open_error(void)
{
	return open_err;
}

uint64_t tpu_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint32_t tpu_rd(tpu_dev *dev, uint32_t off)
{
	return dev->ops->mmio_read(dev->impl, off);
}

void tpu_wr(tpu_dev *dev, uint32_t off, uint32_t val)
{
	dev->ops->mmio_write(dev->impl, off, val);
}

int tpu_dev_present(tpu_dev *dev)
{
	return tpu_rd(dev, TPU_REG_ID) == TPU_ID ? 0 : -ENODEV;
}

int tpu_dev_advance(tpu_dev *dev, bool sleep_if_idle)
{
	int progress = dev->ops->advance(dev->impl);
	if (!progress && sleep_if_idle) {
		/* An idle model has nothing to do until the host acts; don't burn the CPU. */
		struct timespec ts = { 0, 50000 };
		nanosleep(&ts, NULL);
	}
	return progress;
}

int tpu_dev_wait_csts(tpu_dev *dev, uint32_t mask, uint32_t want, int timeout_ms)
{
	uint64_t deadline = tpu_now_ms() + (uint64_t)timeout_ms;
	for (;;) {
		uint32_t csts = tpu_rd(dev, TPU_REG_CSTS);
		if (csts == 0xFFFFFFFFu)
			return -ENODEV;
		if ((csts & mask) == want)
			return 0;
		if (tpu_now_ms() > deadline)
			return -ETIMEDOUT;
		tpu_dev_advance(dev, true);
	}
}

static void program_queue(tpu_dev *dev, unsigned q)
{
	struct tpu_queue *qu = &dev->q[q];
	tpu_wr(dev, TPU_REG_SQ_BASE_LO(q), (uint32_t)qu->sq_iova);
	tpu_wr(dev, TPU_REG_SQ_BASE_HI(q), (uint32_t)(qu->sq_iova >> 32));
	tpu_wr(dev, TPU_REG_SQ_SIZE(q), qu->depth);
	tpu_wr(dev, TPU_REG_CQ_BASE_LO(q), (uint32_t)qu->cq_iova);
	tpu_wr(dev, TPU_REG_CQ_BASE_HI(q), (uint32_t)(qu->cq_iova >> 32));
	tpu_wr(dev, TPU_REG_CQ_SIZE(q), qu->depth);
	if (dev->ops->watch)
		dev->ops->watch(dev->impl, q, qu->cq_iova, (uint64_t)qu->depth * TPU_CQE_BYTES);
	tpu_queue_rewind(dev, q);
}

int tpu_dev_enable(tpu_dev *dev)
{
	for (unsigned w = 0; w < dev->info.num_windows; w++) {
		int err = tpu_window_program(dev, w);
		if (err)
			return err;
	}
	for (unsigned q = 0; q < dev->info.num_queues; q++)
		program_queue(dev, q);
	tpu_wr(dev, TPU_REG_CC, TPU_CC_EN_MASK);
	return tpu_dev_wait_csts(dev, TPU_CSTS_RDY_MASK, TPU_CSTS_RDY_MASK, TPU_CTRL_TIMEOUT_MS);
}

static void read_config(tpu_dev *dev, const struct tpu_uri *u)
{
	uint32_t h0 = tpu_rd(dev, TPU_REG_HWCFG0), cap = tpu_rd(dev, TPU_REG_CAP);
	struct tpu_info *in = &dev->info;

	in->id = tpu_rd(dev, TPU_REG_ID);
	in->version = tpu_rd(dev, TPU_REG_VERSION);
	in->array_n = (h0 & TPU_HWCFG0_ARRAY_N_MASK) >> TPU_HWCFG0_ARRAY_N_SHIFT;
	in->fifo_tiles = (h0 & TPU_HWCFG0_FIFO_TILES_MASK) >> TPU_HWCFG0_FIFO_TILES_SHIFT;
	in->num_queues = (h0 & TPU_HWCFG0_NUM_QUEUES_MASK) >> TPU_HWCFG0_NUM_QUEUES_SHIFT;
	in->num_windows = (h0 & TPU_HWCFG0_NUM_WINDOWS_MASK) >> TPU_HWCFG0_NUM_WINDOWS_SHIFT;
	in->ub_rows = tpu_rd(dev, TPU_REG_HWCFG1);
	in->acc_rows = tpu_rd(dev, TPU_REG_HWCFG2);
	/* STREAM_MATMUL is optional (small FPGA builds): tpu_gemm uses it only when listed */
	in->opcodes = tpu_rd(dev, TPU_REG_OPCODES);
	/* the bf16 mode (docs/spec.md 6.12): tpu_gemm_ex runs TPU_DTYPE_BF16 only when listed */
	in->features = tpu_rd(dev, TPU_REG_FEATURES);
	in->max_queue_entries = ((cap & TPU_CAP_MQES_MASK) >> TPU_CAP_MQES_SHIFT) + 1u;
	in->timeout_units = (cap & TPU_CAP_TIMEOUT_MASK) >> TPU_CAP_TIMEOUT_SHIFT;
	snprintf(in->backend, sizeof(in->backend), "%s", u->ops->name);
}

/* The HWCFG values must be usable before the driver trusts them. */
static int check_config(tpu_dev *dev, struct tpu_uri *u)
{
	struct tpu_info *in = &dev->info;

	if (in->array_n < TPU_ARRAY_N_MIN || in->array_n > TPU_ARRAY_N_MAX ||
	    in->num_queues < 1 || in->num_queues > TPU_NUM_QUEUES_MAX || in->num_windows < 1 ||
	    in->num_windows > TPU_NUM_WINDOWS_MAX || in->fifo_tiles < 1 || in->ub_rows == 0 ||
	    in->acc_rows == 0) {
		snprintf(open_err, sizeof(open_err), "device reports an invalid configuration");
		return -ENODEV;
	}
	if (!u->qdepth_set && u->qdepth > in->max_queue_entries)
		u->qdepth = in->max_queue_entries;
	if (u->qdepth > in->max_queue_entries) {
		snprintf(open_err, sizeof(open_err),
			 "option 'qdepth': %u exceeds the device's largest queue (%u entries)",
			 u->qdepth, in->max_queue_entries);
		return -EINVAL;
	}
	in->queue_depth = u->qdepth;
	return 0;
}

static int open_backend(tpu_dev *dev, struct tpu_uri *u)
{
	const char *what = NULL;
	uint64_t base = TPU_IOVA_SPACING * (1u + (atomic_fetch_add(&iova_slot, 1u) & 0xFFFFFu));
	int err;

	err = hostmem_create((size_t)u->mem, base, &dev->hm);
	if (err) {
		snprintf(open_err, sizeof(open_err), "cannot create a host arena of %llu bytes",
			 (unsigned long long)u->mem);
		return err == -EINVAL ? -ENOMEM : err;
	}
	dev->ops = u->ops;
	err = u->ops->create(&u->bopts, dev->hm, &dev->impl, &what);
	if (err) {
		if (err == -EINVAL)
			snprintf(open_err, sizeof(open_err), "backend '%s' rejected option %s",
				 u->ops->name, what ? what : "(unknown)");
		else
			snprintf(open_err, sizeof(open_err), "backend '%s' failed: %s",
				 u->ops->name, tpu_strerror(err));
		dev->impl = NULL;
		return err;
	}
	return 0;
}

static int setup_queues(tpu_dev *dev)
{
	for (unsigned q = 0; q < dev->info.num_queues; q++) {
		int err = tpu_queue_init(dev, q, dev->info.queue_depth);
		if (err) {
			snprintf(open_err, sizeof(open_err),
				 "cannot allocate queue %u (%u entries): arena or memory too small",
				 q, dev->info.queue_depth);
			return err;
		}
	}
	dev->win[0].base = hostmem_iova_base(dev->hm);
	dev->win[0].len = hostmem_size(dev->hm);
	dev->win[0].perm = TPU_WIN_R | TPU_WIN_W;
	return 0;
}

static void release(tpu_dev *dev)
{
	if (dev->impl) {
		/* Stop the device before its memory goes away. */
		tpu_wr(dev, TPU_REG_CC, 0);
		dev->ops->destroy(dev->impl);
	}
	tpu_buf_free_all(dev);
	for (unsigned q = 0; q < TPU_NUM_QUEUES_MAX; q++)
		tpu_queue_fini(dev, q);
	if (dev->hm)
		hostmem_destroy(dev->hm);
	free(dev);
}

int tpu_open(const char *uri, tpu_dev **out)
{
	struct tpu_uri *u;
	tpu_dev *dev;
	int err;

	open_err[0] = '\0';
	if (!out) {
		snprintf(open_err, sizeof(open_err), "out is NULL");
		return -EINVAL;
	}
	*out = NULL;
	u = malloc(sizeof(*u));
	dev = calloc(1, sizeof(*dev));
	if (!u || !dev) {
		free(u);
		free(dev);
		snprintf(open_err, sizeof(open_err), "out of memory");
		return -ENOMEM;
	}
	err = tpu_uri_parse(uri, u, open_err, sizeof(open_err));
	if (err)
		goto out_free;
	err = open_backend(dev, u);
	if (err)
		goto out_free;
	if (tpu_dev_present(dev)) {
		snprintf(open_err, sizeof(open_err), "no tpu answers (ID 0x%08x)",
			 tpu_rd(dev, TPU_REG_ID));
		err = -ENODEV;
		goto out_free;
	}
	read_config(dev, u);
	err = check_config(dev, u);
	if (!err)
		err = setup_queues(dev);
	if (err)
		goto out_free;
	err = tpu_dev_enable(dev);
	if (err) {
		snprintf(open_err, sizeof(open_err), "device did not become ready: %s",
			 tpu_strerror(err));
		goto out_free;
	}
	free(u);
	*out = dev;
	return 0;

out_free:
	free(u);
	release(dev);
	return err;
}

int tpu_close(tpu_dev *dev)
{
	if (!dev)
		return -EINVAL;
	release(dev);
	return 0;
}

int tpu_get_info(tpu_dev *dev, struct tpu_info *out)
{
	if (!dev || !out)
		return -EINVAL;
	if (tpu_dev_present(dev))
		return -ENODEV;
	*out = dev->info;
	return 0;
}

static int reg_ok(uint32_t off)
{
	return off < TPU_BAR0_SIZE && (off & 3u) == 0;
}

int tpu_reg_read(tpu_dev *dev, uint32_t off, uint32_t *val)
{
	uint32_t v;

	if (!dev || !val || !reg_ok(off))
		return -EINVAL;
	v = tpu_rd(dev, off);
	/* All-ones is a legal value of some registers; the ID register tells a gone device. */
	if (v == 0xFFFFFFFFu && (off == TPU_REG_ID || tpu_dev_present(dev)))
		return -ENODEV;
	*val = v;
	return 0;
}

int tpu_reg_write(tpu_dev *dev, uint32_t off, uint32_t val)
{
	if (!dev || !reg_ok(off))
		return -EINVAL;
	tpu_wr(dev, off, val);
	return 0;
}
