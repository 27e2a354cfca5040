/* The benchmarks of `tpu bench` beyond the GEMM one in cmd_bench.c. */
#ifndef TPU_CLI_BENCH_H
#define TPU_CLI_BENCH_H

#include "cli.h"

/* `tpu bench model MODEL DATA.npy [options]`; argv[0] is "model". Returns a CLI exit code. */
int cli_bench_model(const struct cli_ctx *ctx, int argc, char **argv);

/* `tpu bench train --model mlp|cnn [options]`; argv[0] is "train". Returns a CLI exit code. */
int cli_bench_train(const struct cli_ctx *ctx, int argc, char **argv);

#endif /* TPU_CLI_BENCH_H */
