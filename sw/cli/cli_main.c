/* `tpu`'s command line: global options, then one command.
 *   tpu [--device URI] [--trace FILE.fst] [--help] [--version] COMMAND [ARGS]
 * Global options come before the command; each command also takes --device and --help. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct command {
	const char *name;
	int (*run)(const struct cli_ctx *ctx, int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
    {"bench", cmd_bench, "measure a GEMM or a model on the device (cycles, utilization, DMA)"},
    {"import", cmd_import, "import a quantized ONNX model into a model file"},
    {"export", cmd_export, "write a model file as a quantized ONNX model"},
    {"info", cmd_info, "show the device's identity and configuration"},
    {"matmul", cmd_matmul, "multiply two int8 .npy matrices on the device"},
    {"run", cmd_run, "run a quantized model file on a .npy data set"},
    {"selftest", cmd_selftest, "run GEMMs on the device and check them against a reference"},
    {"train", cmd_train, "train a digits net (MLP, CNN, model file) on the device (bf16)"},
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: tpu [--device URI] [--trace FILE.fst] [--help] [--version] COMMAND [ARGS]\n"
		   "\n"
		   "Commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"  %-10s %s\n"
		"\n"
		"Options:\n"
		"  --device URI   device to use (default $TPU_DEVICE, else \"%s\"), e.g.\n"
		"                 golden, golden:n=8,ub_rows=256, sim, sim:n=8,latency=100\n"
		"  --trace FILE   write an FST waveform of the device (sim devices only)\n"
		"  -h, --help     this help; `tpu COMMAND --help` for a command's\n"
		"  --version      print the version\n"
		"\n"
		"Exit status: 0 success; 1 the work failed (a device error, a wrong result, an output\n"
		"file that cannot be written); 2 something on the command line is wrong: an option,\n"
		"a number (no spaces in or around it), an input file, or the device URI (a bad\n"
		"option such as golden:n=0, a path that does not exist such as uart:/nonexistent).\n",
		"help", "help on a command", cli_default_device());
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

enum { OPT_DEVICE = 1, OPT_HELP, OPT_VERSION, OPT_TRACE };

static const struct cli_opt global_opts[] = {
    {"device", 0, true, OPT_DEVICE},
    {"trace", 0, true, OPT_TRACE},
    {"help", 'h', false, OPT_HELP},
    {"version", 'V', false, OPT_VERSION},
    {NULL, 0, false, 0},
};

/* `tpu help [COMMAND]`: the command's own --help. */
static int run_help(struct cli_ctx *ctx, int argc, char **argv, int at)
{
	if (at + 1 >= argc) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	const struct command *c = find_command(argv[at + 1]);
	if (!c) {
		cli_error(ctx, "unknown command '%s' (see tpu --help)", argv[at + 1]);
		return CLI_EXIT_USAGE;
	}
	char help[] = "--help";
	char *hargv[] = {argv[at + 1], help, NULL};
	char name[64];
	snprintf(name, sizeof(name), "tpu %s", c->name);
	ctx->name = name;
	return c->run(ctx, 2, hargv);
}

int cli_main(int argc, char **argv)
{
	const char *env = getenv("TPU_DEVICE");
	struct cli_ctx ctx = {
	    .device = env && *env ? env : cli_default_device(),
	    .name = "tpu",
	};
	struct cli_scan sc;
	cli_scan_init(&sc, argc, argv, 1);
	for (;;) {
		/* stop at the first positional (the command): later options belong to it */
		if (sc.idx < argc && (argv[sc.idx][0] != '-' || !argv[sc.idx][1]))
			break;
		const char *val;
		int id = cli_next(&sc, &ctx, global_opts, &val);
		if (id == CLI_OPT_END)
			break;
		if (id == CLI_OPT_ERROR)
			return CLI_EXIT_USAGE;
		if (id == CLI_OPT_POSITIONAL) { /* after "--" */
			sc.idx--;
			break;
		}
		switch (id) {
		case OPT_DEVICE:
			ctx.device = val;
			break;
		case OPT_TRACE:
			ctx.trace = val;
			break;
		case OPT_HELP:
			usage(stdout);
			return CLI_EXIT_OK;
		case OPT_VERSION:
			printf("tpu %s\n", CLI_VERSION);
			return CLI_EXIT_OK;
		}
	}
	if (sc.idx >= argc) {
		cli_error(&ctx, "no command given (see tpu --help)");
		return CLI_EXIT_USAGE;
	}
	const char *name = argv[sc.idx];
	if (!strcmp(name, "help"))
		return run_help(&ctx, argc, argv, sc.idx);
	const struct command *c = find_command(name);
	if (!c) {
		cli_error(&ctx, "unknown command '%s' (see tpu --help)", name);
		return CLI_EXIT_USAGE;
	}
	char full[64];
	snprintf(full, sizeof(full), "tpu %s", c->name);
	ctx.name = full;
	return c->run(&ctx, argc - sc.idx, argv + sc.idx);
}
