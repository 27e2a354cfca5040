/* Running the `tpu` binary (path from $TPU_CLI, which `make test-c` sets) in
 * the CLI tests: a scratch directory for input and output files, one run with
 * its exit code, stdout and stderr captured, and the checks every CLI test
 * makes on a run. Used by test_cli.c, test_cli_run.c and test_cli_bench.c. */
#ifndef TPU_TESTS_CLI_FIXTURE_H
#define TPU_TESTS_CLI_FIXTURE_H

#define CLI_DIR_SLOTS 24

/* A scratch directory /tmp/tpu-TAG-XXXXXX and up to CLI_DIR_SLOTS paths inside
 * it. */
struct cli_dir {
  char dir[64];
  char slot[CLI_DIR_SLOTS][192];
  int used;
};

/* Output of one CLI run (longer output is cut). */
struct cli_run {
  int code; /* exit status */
  char out[32768];
  char err[4096];
};

/* Create the directory (failing the test if it cannot) and unset $TPU_DEVICE,
 * so that the default device is what the test expects. */
void cli_dir_init(struct cli_dir *d, const char *tag);

/* Remove the files in the directory and the directory. */
void cli_dir_fini(struct cli_dir *d);

/* The path of name inside the directory, valid until cli_dir_fini. */
const char *cli_dir_path(struct cli_dir *d, const char *name);

/* Run the CLI with args (NULL-terminated, without argv[0]) and stdin from
 * /dev/null; fails the test if it cannot be started or dies from a signal. */
void cli_run_args(struct cli_run *r, const char *const *args);

#define CLI_RUN(r, ...)                                                        \
  do {                                                                         \
    const char *const cli_args_[] = {__VA_ARGS__, NULL};                       \
    cli_run_args((r), cli_args_);                                              \
  } while (0)

/* Exit status code (any non-zero one when code < 0), nothing on stdout, and
 * exactly one line on stderr that starts with prefix and contains want1 and
 * want2 (when not NULL). */
void cli_expect_fail(const struct cli_run *r, int code, const char *prefix,
                     const char *want1, const char *want2);

/* Exit status 0 and nothing on stderr. */
void cli_expect_ok(const struct cli_run *r);

#endif /* TPU_TESTS_CLI_FIXTURE_H */
