/* A simulated device: a device model (Verilated RTL or a C stand-in, sim_model.h) clocked
 * together with the host side of the link (link.h). This is what the "sim" backend drives:
 * MMIO reads block (in simulated time) until their completion comes back; writes are posted;
 * advance clocks the device. */
#ifndef TPU_SIM_DEVICE_H
#define TPU_SIM_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "link.h"
#include "sim_model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tpu_sim;

/* Cycles rst_i is held after creation. */
#define TPU_SIM_RESET_CYCLES 16u

/* Create model m (seed: its random initial state; trace: FST file or NULL) behind a link
 * configured by lc (its link_bytes, max_payload, max_read_req and tags are replaced by the
 * model's), answering DMA from mem. Holds reset for TPU_SIM_RESET_CYCLES cycles.
 * Returns 0, -EINVAL (bad link config or trace), -ENOMEM. */
int tpu_sim_create(const struct tpu_sim_model *m, const struct tpu_link_cfg *lc,
		   const struct tpu_link_mem *mem, uint64_t seed, const char *trace,
		   struct tpu_sim **out);
void tpu_sim_destroy(struct tpu_sim *s);

/* BAR0 read: clocks the device until the read completion arrives. All-ones after a surprise
 * removal, or when no completion comes within the link's mmio_timeout_cycles. */
uint32_t tpu_sim_mmio_read(struct tpu_sim *s, uint32_t off);
/* BAR0 write: posted (queued on the link, delivered after the latency). */
void tpu_sim_mmio_write(struct tpu_sim *s, uint32_t off, uint32_t val);
/* Clock up to cycles cycles; returns early (1) when an interrupt (MSI) arrives, which is the
 * driver's hint to look at its CQs. Returns 1 when an MSI arrived, 0 otherwise. */
int tpu_sim_advance(struct tpu_sim *s, uint64_t cycles);
/* As tpu_sim_advance, but also returns early (2) after the cycle in which a device write
 * reached host memory in a range watched with tpu_link_watch (the driver's completion
 * queues): a host spinning on a CQ's phase bit sees the entry as it lands. */
int tpu_sim_advance_watch(struct tpu_sim *s, uint64_t cycles);
/* Clock exactly one cycle. */
void tpu_sim_cycle(struct tpu_sim *s);

uint64_t tpu_sim_irq_count(const struct tpu_sim *s);
uint64_t tpu_sim_cycles(const struct tpu_sim *s);
/* Cycles in which the model reported an assertion failure or $error. */
uint64_t tpu_sim_assert_failures(const struct tpu_sim *s);
struct tpu_link *tpu_sim_link(struct tpu_sim *s);
const struct tpu_sim_model *tpu_sim_model_of(const struct tpu_sim *s);
/* The model instance's own handle (what its create returned), for tests of C models. */
void *tpu_sim_model_handle(struct tpu_sim *s);

#ifdef __cplusplus
}
#endif
#endif /* TPU_SIM_DEVICE_H */
