/* JSON output of the `tpu` subcommands (--json): strings, nulls and the device-counter fields
 * of one layer or run, all printed on stdout. Keys are the callers': each command keeps the
 * ones its documentation lists. */
#ifndef TPU_CLI_JSON_H
#define TPU_CLI_JSON_H

#include <stdint.h>

#include "tpu/model.h"

/* Print s as a JSON string: quotes, backslashes, control characters and DEL escaped. */
void cli_json_str(const char *s);

/* cli_json_str(s), or null when s is NULL. */
void cli_json_str_or_null(const char *s);

/* MXU utilization of s on an n x n array: useful MACs / (n^2 x cycles); 0 with no cycles. */
double cli_mxu_util(const struct tpu_layer_stats *s, uint32_t n);

/* The counters of s as "key": value pairs (no braces): cycles, mxu_busy_cycles, macs,
 * <util_key> (cli_mxu_util on n), dma_read_bytes, dma_write_bytes, wall_seconds. */
void cli_json_layer_stats(const struct tpu_layer_stats *s, uint32_t n, const char *util_key);

#endif /* TPU_CLI_JSON_H */
