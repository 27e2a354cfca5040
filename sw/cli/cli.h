/* Shared pieces of the `tpu` command-line tool: the per-run context, the option scanner,
 * number parsing and the one-line error reporter. Each subcommand lives in cmd_<name>.c. */
#ifndef TPU_CLI_CLI_H
#define TPU_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>

#define CLI_VERSION "0.1.0"

/* Exit codes: 0 success, 1 the work failed (device error, selftest mismatch), 2 bad usage or
 * bad input. */
enum {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAIL = 1,
	CLI_EXIT_USAGE = 2,
};

struct cli_ctx {
	const char *device; /* device URI: --device, else $TPU_DEVICE, else cli_default_device() */
	const char *name;   /* "tpu matmul": the prefix of every message */
	const char *trace;  /* --trace FILE.fst: added to a sim URI as trace=FILE, or NULL */
};

/* The default device: "sim" (the Verilated RTL) when a model is built in, else "golden". */
const char *cli_default_device(void);

/* Print "<ctx->name>: <message>\n" on stderr: every error is exactly one line. */
__attribute__((format(printf, 2, 3))) void cli_error(const struct cli_ctx *ctx, const char *fmt,
						     ...);

/* ------------------------------------------------------------ option scanner */

struct cli_opt {
	const char *name; /* long name without dashes, e.g. "bias" */
	char short_name;  /* 0 for none */
	bool has_arg;
	int id; /* > 0, returned by cli_next */
};

enum {
	CLI_OPT_END = 0,	 /* no arguments left */
	CLI_OPT_POSITIONAL = -1, /* *val is a positional argument */
	CLI_OPT_ERROR = -2,	 /* an error was printed */
};

struct cli_scan {
	int argc;
	char **argv;
	int idx;       /* next argument to look at */
	bool only_pos; /* after "--" */
};

/* Start scanning argv[first..argc-1]. */
void cli_scan_init(struct cli_scan *sc, int argc, char **argv, int first);

/* Next option: returns its id (with *val its value when it takes one), CLI_OPT_POSITIONAL,
 * CLI_OPT_END, or CLI_OPT_ERROR after printing one line (unknown option, missing value, value
 * given to a flag). Accepts --name VALUE, --name=VALUE, -x VALUE, -xVALUE and "--". */
int cli_next(struct cli_scan *sc, const struct cli_ctx *ctx, const struct cli_opt *opts,
	     const char **val);

/* Exactly two positional arguments, e.g. MODEL and DATA.npy: names[] for messages, val[] the
 * values given so far (n of them). Start with {.names = {"MODEL", "DATA.npy"}}. */
struct cli_pair {
	const char *names[2];
	const char *val[2];
	int n;
};

/* Take positional argument val. Returns 0, or CLI_EXIT_USAGE after printing "unexpected
 * argument 'val': give exactly A and B" when both are already given. */
int cli_pair_add(const struct cli_ctx *ctx, struct cli_pair *p, const char *val);

/* After the scan: 0 when both were given, else CLI_EXIT_USAGE after printing "missing ...:
 * usage <usage>". */
int cli_pair_done(const struct cli_ctx *ctx, const struct cli_pair *p, const char *usage);

/* ------------------------------------------------------------ numbers */

/* Parse a whole decimal (or 0x hex) integer in [lo, hi]. Returns 0, -EINVAL (not a number),
 * -ERANGE (outside [lo, hi]). */
int cli_parse_long(const char *s, long lo, long hi, long *out);

/* The same for an unsigned 64-bit value (no sign allowed). */
int cli_parse_u64(const char *s, unsigned long long *out);

/* A whole finite decimal floating-point number ("1.5", "2e3", "-0.25"; no hex, inf or nan).
 * None of these parsers accepts white space anywhere, leading or trailing. Returns 0, -EINVAL,
 * -ERANGE (overflows). */
int cli_parse_double(const char *s, double *out);

/* ------------------------------------------------------------ device */

struct tpu_dev;
struct tpu_info;

/* tpu_open(uri) and, when info is not NULL, tpu_get_info. Returns 0 with *dev open, or the
 * library's error after printing one line (and with nothing left open). */
int cli_open(const struct cli_ctx *ctx, const char *uri, struct tpu_dev **dev,
	     struct tpu_info *info);

/* The exit code for a cli_open failure err: CLI_EXIT_USAGE when the URI itself is wrong (a
 * malformed URI, an option out of range such as golden:n=0, a device path that does not exist
 * such as uart:/nonexistent), CLI_EXIT_FAIL when the device failed (no answer, I/O error). */
int cli_open_exit(int err);

/* ------------------------------------------------------------ entry */

/* The whole `tpu` command line (argv[0] is the program name); returns the exit code. */
int cli_main(int argc, char **argv);

/* ------------------------------------------------------------ subcommands */

int cmd_bench(const struct cli_ctx *ctx, int argc, char **argv);
int cmd_import(const struct cli_ctx *ctx, int argc, char **argv);
int cmd_export(const struct cli_ctx *ctx, int argc, char **argv);
int cmd_info(const struct cli_ctx *ctx, int argc, char **argv);
int cmd_matmul(const struct cli_ctx *ctx, int argc, char **argv);
int cmd_run(const struct cli_ctx *ctx, int argc, char **argv);
int cmd_selftest(const struct cli_ctx *ctx, int argc, char **argv);
int cmd_train(const struct cli_ctx *ctx, int argc, char **argv);

#endif /* TPU_CLI_CLI_H */
