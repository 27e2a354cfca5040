/* Golden device: DMA window checks (docs/spec.md §5) and the DMA port wrappers: reads report
 * failures, writes are posted (spec §5, §6.1 item 7). */
#include "golden_internal.h"

bool golden_window_ok(const struct golden *g, uint64_t addr, uint64_t len, bool dir_write)
{
	uint32_t need = TPU_WIN_PERM_VALID_MASK | (dir_write ? TPU_WIN_PERM_W_MASK :
							       TPU_WIN_PERM_R_MASK);
	uint64_t last;
	uint32_t i;

	/* A span whose last byte passes 2^64 - 1 never matches; an empty span is never issued. */
	if (len == 0 || addr > UINT64_MAX - (len - 1))
		return false;
	last = addr + (len - 1);
	for (i = 0; i < g->cfg.num_windows; i++) {
		const struct golden_window *w = &g->win[i];

		/* limit < base matches nothing, which these comparisons give for free. */
		if ((w->perm & need) == need && w->base <= addr && last <= w->limit)
			return true;
	}
	return false;
}

int golden_dma_read(struct golden *g, uint64_t iova, void *dst, size_t len)
{
	return g->dma.read(g->dma.ctx, iova, dst, len);
}

int golden_dma_write(struct golden *g, uint64_t iova, const void *src, size_t len)
{
	return g->dma.write(g->dma.ctx, iova, src, len);
}

/* Writes to host memory travel the link as posted MWRs (docs/link.md): the device never learns
 * that host memory refused one, so neither may the golden model, or it would not be bit-exact
 * with the RTL. A refused write is simply lost. */
void golden_dma_post(struct golden *g, uint64_t iova, const void *src, size_t len)
{
	(void)golden_dma_write(g, iova, src, len);
}
