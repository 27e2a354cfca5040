/* Reports of `tpu run`: a text summary with a per-layer table, or one JSON object. Derived
 * figures: MXU utilization = useful MACs / (N^2 x cycles); simulated time = cycles at the
 * nominal 1 GHz clock; images/s = examples / simulated time. */
#include <stdio.h>

#include "json.h"
#include "run.h"

static const char *type_name(uint32_t type)
{
	switch (type) {
	case TPU_LAYER_CONV2D:
		return "CONV2D";
	case TPU_LAYER_MAXPOOL2D:
		return "MAXPOOL2D";
	case TPU_LAYER_DENSE:
		return "DENSE";
	case TPU_LAYER_AVGPOOL2D:
		return "AVGPOOL2D";
	}
	return "?";
}

static const char *act_name(uint32_t act)
{
	static const char *const names[] = {"", "relu", "relu6", "sigmoid", "tanh"};
	return act < sizeof(names) / sizeof(names[0]) ? names[act] : "?";
}

static double sim_seconds(const struct run_result *r)
{
	return (double)r->stats.total.cycles / RUN_CLOCK_HZ;
}

static double images_per_second(const struct run_result *r)
{
	double t = sim_seconds(r);
	return t > 0 ? (double)r->examples / t : 0.0;
}

static double frac(size_t a, size_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

void run_print_text(const struct run_result *r)
{
	const struct tpu_model *m = r->model;
	const struct tpu_layer_stats *t = &r->stats.total;
	printf("%-12s %s (%s): %u layers, input %ux%ux%u, %u classes\n", "model", m->name,
	       r->model_path, m->n_layers, m->in_h, m->in_w, m->in_c, m->num_classes);
	printf("%-12s %s (%s, N = %u)\n", "device", r->device, r->backend, r->array_n);
	printf("%-12s %zu\n", "examples", r->examples);
	if (r->have_labels)
		printf("%-12s %.2f%% (%zu of %zu)\n", "accuracy",
		       100.0 * frac(r->correct, r->examples), r->correct, r->examples);
	printf("%-12s float %.2f%%, int8 %.2f%% (when the model was built)\n", "recorded",
	       100.0 * m->float_accuracy, 100.0 * m->int8_accuracy);
	printf("%-12s %llu (%.0f per example)\n", "cycles", (unsigned long long)t->cycles,
	       (double)t->cycles / (double)r->examples);
	printf("%-12s %.2f%% (%llu useful MACs / (%u x %u x cycles))\n", "mxu util",
	       100.0 * cli_mxu_util(t, r->array_n), (unsigned long long)t->macs, r->array_n,
	       r->array_n);
	printf("%-12s %.3f ms at the nominal 1 GHz clock\n", "device time", 1e3 * sim_seconds(r));
	printf("%-12s %.0f images/s at 1 GHz\n", "throughput", images_per_second(r));
	printf("%-12s %llu read, %llu written\n", "dma bytes",
	       (unsigned long long)t->dma_read_bytes, (unsigned long long)t->dma_write_bytes);
	printf("%-12s %.3f s\n", "host time", r->wall_seconds);
	if (r->compare)
		printf("%-12s %s: predictions %.2f%% agree (%zu of %zu), raw outputs %.2f%% "
		       "identical (%zu of %zu)\n",
		       "compare", r->compare, 100.0 * frac(r->pred_agree, r->examples),
		       r->pred_agree, r->examples, 100.0 * frac(r->raw_agree, r->examples),
		       r->raw_agree, r->examples);
	if (r->pred_path)
		printf("%-12s %s (int32, %zu)\n", "predictions", r->pred_path, r->examples);
	printf("\n%-5s %-16s %-10s %12s %8s %14s %12s %12s\n", "layer", "type", "output", "cycles",
	       "mxu", "macs", "dma read", "dma write");
	for (uint32_t i = 0; i < m->n_layers; i++) {
		const struct tpu_layer *l = &m->layers[i];
		const struct tpu_layer_stats *s = &r->stats.layer[i];
		uint32_t h, w, c;
		char type[24], shape[32];
		tpu_model_layer_out_shape(m, i, &h, &w, &c);
		snprintf(type, sizeof(type), "%s%s%s", type_name(l->type), l->act ? "+" : "",
			 l->type == TPU_LAYER_MAXPOOL2D ? "" : act_name(l->act));
		snprintf(shape, sizeof(shape), "%ux%ux%u", h, w, c);
		printf("%-5u %-16s %-10s %12llu %7.2f%% %14llu %12llu %12llu\n", i, type, shape,
		       (unsigned long long)s->cycles, 100.0 * cli_mxu_util(s, r->array_n),
		       (unsigned long long)s->macs, (unsigned long long)s->dma_read_bytes,
		       (unsigned long long)s->dma_write_bytes);
	}
}

void run_print_json(const struct run_result *r)
{
	const struct tpu_model *m = r->model;
	fputs("{\"model\": ", stdout);
	cli_json_str(m->name);
	fputs(", \"model_file\": ", stdout);
	cli_json_str(r->model_path);
	fputs(", \"device\": ", stdout);
	cli_json_str(r->device);
	fputs(", \"backend\": ", stdout);
	cli_json_str(r->backend);
	printf(", \"array_n\": %u, \"examples\": %zu", r->array_n, r->examples);
	if (r->have_labels)
		printf(", \"correct\": %zu, \"accuracy\": %.6f", r->correct,
		       frac(r->correct, r->examples));
	else
		fputs(", \"correct\": null, \"accuracy\": null", stdout);
	printf(", \"recorded_float_accuracy\": %.6f, \"recorded_int8_accuracy\": %.6f",
	       (double)m->float_accuracy, (double)m->int8_accuracy);
	fputs(", ", stdout);
	cli_json_layer_stats(&r->stats.total, r->array_n, "mxu_utilization");
	printf(", \"clock_hz\": %.0f, \"device_seconds\": %.9f, \"images_per_second\": %.3f",
	       RUN_CLOCK_HZ, sim_seconds(r), images_per_second(r));
	printf(", \"host_seconds\": %.6f", r->wall_seconds);
	fputs(", \"predictions_file\": ", stdout);
	cli_json_str_or_null(r->pred_path);
	fputs(", \"compare\": ", stdout);
	if (r->compare) {
		fputs("{\"device\": ", stdout);
		cli_json_str(r->compare);
		printf(", \"predictions_agree\": %zu, \"prediction_agreement\": %.6f, "
		       "\"outputs_identical\": %zu, \"output_agreement\": %.6f}",
		       r->pred_agree, frac(r->pred_agree, r->examples), r->raw_agree,
		       frac(r->raw_agree, r->examples));
	} else {
		fputs("null", stdout);
	}
	fputs(", \"layers\": [", stdout);
	for (uint32_t i = 0; i < m->n_layers; i++) {
		const struct tpu_layer *l = &m->layers[i];
		uint32_t h, w, c;
		tpu_model_layer_out_shape(m, i, &h, &w, &c);
		printf(
		    "%s{\"index\": %u, \"type\": \"%s\", \"act\": \"%s\", \"out_shape\": [%u, %u, "
		    "%u], ",
		    i ? ", " : "", i, type_name(l->type),
		    l->type == TPU_LAYER_MAXPOOL2D || !l->act ? "none" : act_name(l->act), h, w, c);
		cli_json_layer_stats(&r->stats.layer[i], r->array_n, "mxu_utilization");
		putchar('}');
	}
	fputs("]}\n", stdout);
}
