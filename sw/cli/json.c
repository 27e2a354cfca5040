/* JSON output shared by `tpu run` (run_report.c), `tpu bench gemm` and `tpu bench model`. */
#include <stdio.h>

#include "json.h"

void cli_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

void cli_json_str_or_null(const char *s)
{
	if (s)
		cli_json_str(s);
	else
		fputs("null", stdout);
}

double cli_mxu_util(const struct tpu_layer_stats *s, uint32_t n)
{
	double slots = (double)n * n * (double)s->cycles;
	return slots > 0 ? (double)s->macs / slots : 0.0;
}

void cli_json_layer_stats(const struct tpu_layer_stats *s, uint32_t n, const char *util_key)
{
	printf("\"cycles\": %llu, \"mxu_busy_cycles\": %llu, \"macs\": %llu, \"%s\": %.6f, "
	       "\"dma_read_bytes\": %llu, \"dma_write_bytes\": %llu, \"wall_seconds\": %.6f",
	       (unsigned long long)s->cycles, (unsigned long long)s->mxu_busy_cycles,
	       (unsigned long long)s->macs, util_key, cli_mxu_util(s, n),
	       (unsigned long long)s->dma_read_bytes, (unsigned long long)s->dma_write_bytes,
	       s->wall_seconds);
}
