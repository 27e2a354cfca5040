/* Host memory model: one arena of host RAM the device reaches by IOVA (an IOMMU-lite). Buffers are
 * carved from the arena; device accesses to IOVAs outside a live buffer fail like an unmapped
 * IOMMU page (Unsupported Request). Every device access can be observed through a hook, which is
 * how tests prove that nothing outside a window, or after reset, was touched. */
#ifndef TPU_HOSTMEM_H
#define TPU_HOSTMEM_H

#include <stddef.h>
#include <stdint.h>

struct hostmem;

enum hostmem_dir { HOSTMEM_READ, HOSTMEM_WRITE };

/* Called for each device access before it is performed; return non-zero to fail it (fault
 * injection). */
typedef int (*hostmem_hook)(void *ctx, enum hostmem_dir dir, uint64_t iova, size_t len);

/* An arena of size bytes whose first byte has IOVA iova_base (non-zero, 4 KiB aligned, so that
 * IOVA 0 is never valid). Returns 0, -EINVAL, -ENOMEM. */
int hostmem_create(size_t size, uint64_t iova_base, struct hostmem **out);
void hostmem_destroy(struct hostmem *hm);

/* Allocate len >= 1 bytes aligned to align (power of two, >= 64), zeroed. Returns 0, -EINVAL,
 * -ENOMEM. */
int hostmem_alloc(struct hostmem *hm, size_t len, size_t align, uint64_t *iova, void **ptr);
/* Free by IOVA. Returns 0 or -EINVAL when iova is not the start of a live allocation. */
int hostmem_free(struct hostmem *hm, uint64_t iova);

uint64_t hostmem_iova_base(const struct hostmem *hm);
size_t hostmem_size(const struct hostmem *hm);

/* Device-side access: 0, or -EFAULT when any byte lies outside a live allocation (nothing is
 * transferred then), or the hook's refusal as -EIO. */
int hostmem_dma_read(void *hm, uint64_t iova, void *dst, size_t len);
int hostmem_dma_write(void *hm, uint64_t iova, const void *src, size_t len);

void hostmem_set_hook(struct hostmem *hm, hostmem_hook hook, void *ctx);

#endif /* TPU_HOSTMEM_H */
