/* `tpu run` (cmd_run.c): what one run measured, and its text and JSON reports (run_report.c). */
#ifndef TPU_CLI_RUN_H
#define TPU_CLI_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpu/model.h"

/* Nominal device clock for simulated time (docs/performance.md): one cycle = 1 ns. */
#define RUN_CLOCK_HZ 1e9

/* Examples sent to the device per tpu_model_run call (also the progress bar's step). Fixed,
 * so that the figures do not depend on whether stderr is a terminal. */
#define RUN_CHUNK 128

struct run_result {
	const char *model_path;
	const struct tpu_model *model;
	const char *device; /* URI */
	char backend[16];
	uint32_t array_n;
	size_t examples;
	bool have_labels;
	size_t correct;
	struct tpu_model_stats stats;
	double wall_seconds;   /* host time of the device runs */
	const char *pred_path; /* -o, or NULL */
	const char *compare;   /* --compare URI, or NULL */
	size_t pred_agree;     /* examples whose predicted class is the same on both */
	size_t raw_agree;      /* examples whose int8 outputs are identical on both */
};

/* Print r as text (several "name value" lines and a per-layer table) on stdout. */
void run_print_text(const struct run_result *r);

/* Print r as one JSON object on stdout (keys in docs/model-format.md's "tpu run"). */
void run_print_json(const struct run_result *r);

#endif /* TPU_CLI_RUN_H */
