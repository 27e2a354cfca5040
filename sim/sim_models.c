/* The registry of Verilated device builds. mk/sim.mk builds a fixed set of configurations
 * (sim/verilated/tpu_device_harness.cpp compiled once per N, each defining
 * tpu_sim_model_n<N>) and links them whole-archive into the CLI and the test runner, and into
 * libtpu_sim.so (mk/shlib.mk), which a process loads before libtpu.so. The references here are
 * weak, so a libtpu without those objects links and simply has no model. */
#include <stddef.h>
#include <string.h>

#include "sim_model.h"

#if defined(__GNUC__)
#define WEAK __attribute__((weak))
#else
#error "weak symbols needed for the optional Verilated models"
#endif

extern const struct tpu_sim_model tpu_sim_model_n4 WEAK;
extern const struct tpu_sim_model tpu_sim_model_n8 WEAK;
extern const struct tpu_sim_model tpu_sim_model_n16 WEAK;
extern const struct tpu_sim_model tpu_sim_model_n32 WEAK;
extern const struct tpu_sim_model tpu_sim_model_b8 WEAK; /* N = 8 with the bf16 mode */
extern const struct tpu_sim_model tpu_sim_model_b16 WEAK; /* N = 16 with the bf16 mode */
/* Test-only configurations: found by name (tpu_sim_model_named), never listed. */
extern const struct tpu_sim_model tpu_sim_model_s8 WEAK;

unsigned tpu_sim_models(const struct tpu_sim_model **out, unsigned max)
{
	const struct tpu_sim_model *all[] = { &tpu_sim_model_n4, &tpu_sim_model_n8,
					      &tpu_sim_model_n16, &tpu_sim_model_n32,
					      &tpu_sim_model_b8, &tpu_sim_model_b16 };
	unsigned n = 0;

	for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (!all[i])
			continue;
		if (n < max)
			out[n] = all[i];
		n++;
	}
	return n;
}

const struct tpu_sim_model *tpu_sim_model_find(uint32_t n, uint32_t bf16)
{
	const struct tpu_sim_model *list[TPU_SIM_MODELS_MAX];
	unsigned cnt = tpu_sim_models(list, TPU_SIM_MODELS_MAX);

	for (unsigned i = 0; i < cnt && i < TPU_SIM_MODELS_MAX; i++)
		if (list[i]->array_n == n && list[i]->bf16 == bf16)
			return list[i];
	return NULL;
}

const struct tpu_sim_model *tpu_sim_model_named(const char *name)
{
	const struct tpu_sim_model *all[] = { &tpu_sim_model_n4, &tpu_sim_model_n8,
					      &tpu_sim_model_n16, &tpu_sim_model_n32,
					      &tpu_sim_model_b8, &tpu_sim_model_b16,
					      &tpu_sim_model_s8 };

	if (!name)
		return NULL;
	for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i] && !strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}
