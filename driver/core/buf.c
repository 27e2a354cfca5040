/* DMA buffers: carved from the device's host arena, tracked per device so that submissions can be
 * checked against them and a buffer in use cannot be freed. */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

bool tpu_buf_is_live(const tpu_buf *buf)
{
	return buf && buf->magic == TPU_BUF_MAGIC_LIVE;
}

/* A recycled handle from the graveyard once it is full, else a fresh one. */
static struct tpu_buf *handle_get(tpu_dev *dev)
{
	struct tpu_buf *b;

	if (dev->grave_n < TPU_BUF_GRAVEYARD)
		return calloc(1, sizeof(*b));
	b = dev->grave_head;
	dev->grave_head = b->next;
	if (!dev->grave_head)
		dev->grave_tail = NULL;
	dev->grave_n--;
	return b;
}

static void grave_put(tpu_dev *dev, struct tpu_buf *b)
{
	b->magic = TPU_BUF_MAGIC_DEAD;
	b->next = NULL;
	b->prev = NULL;
	if (dev->grave_tail)
		dev->grave_tail->next = b;
	else
		dev->grave_head = b;
	dev->grave_tail = b;
	dev->grave_n++;
}

int tpu_buf_alloc(tpu_dev *dev, size_t len, tpu_buf **out)
{
	struct tpu_buf *b;
	int err;

	if (!dev || !out || len == 0)
		return -EINVAL;
	*out = NULL;
	b = handle_get(dev);
	if (!b)
		return -ENOMEM;
	err = hostmem_alloc(dev->hm, len, 64, &b->iova, &b->ptr);
	if (err) {
		grave_put(dev, b);
		return err == -EINVAL ? -ENOMEM : err;
	}
	b->magic = TPU_BUF_MAGIC_LIVE;
	b->refs = 0;
	b->dev = dev;
	b->len = len;
	b->prev = NULL;
	b->next = dev->bufs;
	if (dev->bufs)
		dev->bufs->prev = b;
	dev->bufs = b;
	*out = b;
	return 0;
}

void *tpu_buf_ptr(const tpu_buf *buf)
{
	return tpu_buf_is_live(buf) ? buf->ptr : NULL;
}

uint64_t tpu_buf_iova(const tpu_buf *buf)
{
	return tpu_buf_is_live(buf) ? buf->iova : 0;
}

size_t tpu_buf_len(const tpu_buf *buf)
{
	return tpu_buf_is_live(buf) ? buf->len : 0;
}

static void unlink_live(tpu_dev *dev, struct tpu_buf *b)
{
	if (b->prev)
		b->prev->next = b->next;
	else
		dev->bufs = b->next;
	if (b->next)
		b->next->prev = b->prev;
}

int tpu_buf_free(tpu_buf *buf)
{
	tpu_dev *dev;

	if (!tpu_buf_is_live(buf))
		return -EINVAL;
	if (buf->refs)
		return -EBUSY;
	dev = buf->dev;
	unlink_live(dev, buf);
	hostmem_free(dev->hm, buf->iova);
	grave_put(dev, buf);
	return 0;
}

struct tpu_buf *tpu_buf_find(tpu_dev *dev, uint64_t iova, uint64_t len)
{
	for (struct tpu_buf *b = dev->bufs; b; b = b->next) {
		if (iova < b->iova || iova - b->iova >= b->len)
			continue;
		if (len > b->len - (iova - b->iova))
			return NULL;
		return b;
	}
	return NULL;
}

void tpu_buf_free_all(tpu_dev *dev)
{
	struct tpu_buf *b, *next;

	for (b = dev->bufs; b; b = next) {
		next = b->next;
		b->magic = TPU_BUF_MAGIC_DEAD;
		free(b);
	}
	dev->bufs = NULL;
	for (b = dev->grave_head; b; b = next) {
		next = b->next;
		free(b);
	}
	dev->grave_head = dev->grave_tail = NULL;
	dev->grave_n = 0;
}
