/* `tpu info`: the device's identity page and configuration, one "name value" line each. */
#include <stdio.h>

#include "cli.h"
#include "tpu/numerics.h"
#include "tpu/tpu.h"

static void help(void)
{
	printf("usage: tpu info [--device URI]\n"
	       "\n"
	       "Open the device and print its identity and configuration: ID, interface version,\n"
	       "backend, array size N, unified buffer and accumulator rows, weight FIFO tiles,\n"
	       "queues, DMA windows, queue sizes, the implemented opcodes (STREAM_MATMUL is\n"
	       "optional), the features (the bf16 mode and the single and float requantization\n"
	       "roundings are optional) and the K limit: the largest K of a GEMM, since a sum of\n"
	       "more int8 products can overflow int32 (tpu_gemm and tpu matmul refuse a larger\n"
	       "one).\n"
	       "\n"
	       "Options:\n"
	       "  --device URI   device to use (default: the global --device)\n"
	       "  -h, --help     this help\n");
}

enum { OPT_DEVICE = 1, OPT_HELP };

static const struct cli_opt opts[] = {
    {"device", 0, true, OPT_DEVICE},
    {"help", 'h', false, OPT_HELP},
    {NULL, 0, false, 0},
};

/* Printable form of the ID magic ('TPU1' read as little-endian bytes). */
static void id_text(uint32_t id, char out[5])
{
	for (int i = 0; i < 4; i++) {
		char c = (char)(id >> (8 * i));
		out[i] = c >= 0x20 && c < 0x7f ? c : '.';
	}
	out[4] = '\0';
}

int cmd_info(const struct cli_ctx *ctx, int argc, char **argv)
{
	const char *device = ctx->device;
	struct cli_scan sc;
	const char *val;
	int id;
	cli_scan_init(&sc, argc, argv, 1);
	while ((id = cli_next(&sc, ctx, opts, &val)) != CLI_OPT_END) {
		switch (id) {
		case CLI_OPT_ERROR:
			return CLI_EXIT_USAGE;
		case CLI_OPT_POSITIONAL:
			cli_error(ctx, "unexpected argument '%s' (see %s --help)", val, ctx->name);
			return CLI_EXIT_USAGE;
		case OPT_DEVICE:
			device = val;
			break;
		case OPT_HELP:
			help();
			return CLI_EXIT_OK;
		}
	}

	tpu_dev *dev;
	struct tpu_info info;
	int err = cli_open(ctx, device, &dev, &info);
	if (err)
		return cli_open_exit(err);
	char idt[5];
	id_text(info.id, idt);
	printf("%-18s %s\n", "device", device);
	printf("%-18s %s\n", "backend", info.backend);
	printf("%-18s 0x%08x ('%s')\n", "id", info.id, idt);
	printf("%-18s %u.%u.%u\n", "version", info.version >> 16, (info.version >> 8) & 0xff,
	       info.version & 0xff);
	printf("%-18s %u (%u x %u MACs)\n", "array N", info.array_n, info.array_n, info.array_n);
	printf("%-18s %u\n", "ub rows", info.ub_rows);
	printf("%-18s %u\n", "acc rows", info.acc_rows);
	printf("%-18s %u\n", "fifo tiles", info.fifo_tiles);
	printf("%-18s %u (driver depth %u)\n", "queues", info.num_queues, info.queue_depth);
	printf("%-18s %u\n", "windows", info.num_windows);
	printf("%-18s %u\n", "max queue entries", info.max_queue_entries);
	/* OPCODES lists the optional STREAM_MATMUL; 0 = a device without the register */
	printf("%-18s 0x%03x (STREAM_MATMUL %s)\n", "opcodes", info.opcodes,
	       (info.opcodes >> TPU_OP_STREAM_MATMUL) & 1u ? "implemented" : "not implemented");
	/* FEATURES: the optional bf16 mode (tpu matmul --dtype bf16) and rounding modes */
	printf("%-18s 0x%x (bf16 %s; requantization %s)\n", "features", info.features,
	       info.features & TPU_FEATURES_BF16_MASK ? "implemented: --dtype bf16"
						      : "not implemented: int8 only",
	       info.features & TPU_FEATURES_ROUND_MASK ? "rounding double, single or float"
						       : "rounding double only");
	if (info.timeout_units)
		printf("%-18s %u x 1024 cycles\n", "watchdog", info.timeout_units);
	else
		printf("%-18s none\n", "watchdog");
	printf("%-18s %u (largest GEMM K: a sum of more int8 products can overflow int32; "
	       "refused)\n", "K limit",
	       TPU_K_NO_OVERFLOW);
	tpu_close(dev);
	return CLI_EXIT_OK;
}
