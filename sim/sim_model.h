/* A device model behind the link: the Verilated tpu_device (sim/verilated/
 * tpu_device_harness.cpp, one build per parameter set) or a C stand-in used by the link tests.
 * Every model exposes exactly the link channels of docs/link.md plus reset. */
#ifndef TPU_SIM_MODEL_H
#define TPU_SIM_MODEL_H

#include <stdint.h>

#include "link.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tpu_sim_model {
	const char *name; /* "n8": what the sim URI's n= selects */
	/* Hardware parameters the model was built with (as in HWCFG and the link parameters). */
	uint32_t array_n, ub_rows, acc_rows, fifo_tiles, num_queues, num_windows,
		max_queue_entries;
	uint32_t link_bytes, max_payload, max_read_req, tags;
	uint32_t bf16; /* 1: built with the bf16 mode (FEATURES.BF16; "sim:bf16=1" selects it) */
	/* Create an instance. seed drives the random initial state (Verilator
	 * +verilator+rand+reset+2 +verilator+seed+S, printed on stdout); trace (may be NULL) is an
	 * FST file to write. Returns 0, -ENOMEM, -EINVAL (trace file cannot be opened, or tracing
	 * not built in). */
	int (*create)(const struct tpu_sim_model *m, uint64_t seed, const char *trace, void **h);
	void (*destroy)(void *h);
	/* One device cycle with rst_i = rst: apply in with the clock low, settle, sample *out,
	 * rising edge. Returns 0, or -EIO once the model has reported an assertion failure or
	 * $error/$fatal (the model keeps running; the caller decides). */
	int (*step)(void *h, int rst, const struct tpu_link_in *in, struct tpu_link_out *out);
};

#define TPU_SIM_MODELS_MAX 6u

/* The Verilated models built into this binary: up to max of them into out, the int8 ones
 * ordered by N, then the bf16 ones;
 * returns how many there are. Models are linked in by mk/sim.mk; a library built without
 * Verilator has none. */
unsigned tpu_sim_models(const struct tpu_sim_model **out, unsigned max);
/* The built model with array size n and the bf16 mode or not (bf16 0 or 1), or NULL. */
const struct tpu_sim_model *tpu_sim_model_find(uint32_t n, uint32_t bf16);
/* The built model called name ("n8", or a test-only configuration such as "s8" that
 * tpu_sim_models does not list), or NULL. */
const struct tpu_sim_model *tpu_sim_model_named(const char *name);

#ifdef __cplusplus
}
#endif
#endif /* TPU_SIM_MODEL_H */
