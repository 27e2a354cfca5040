/* libFuzzer harness: the `tpu` command line (cli_main, sw/cli): option scanning, number parsing,
 * every command's argument checks and the loading of its input files, with the device open
 * replaced by a stub that fails (so no GEMM runs and no output is written). The input is the
 * argument list, NUL-separated; a '/' in an argument becomes '_', so every file named is one in
 * the harness's private directory, which holds small valid inputs (A.npy, B.npy, bias.npy,
 * M.npy, S.npy, L.npy, X.npy, Y.npy, model.tpum). Oracle: no crash or sanitizer report, exit
 * status 0, 1 or 2, and a failure prints exactly one line on stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/npy.h"
#include "fuzz_util.h"
#include "tpu/tpu.h"

#define MAX_ARGS 24
#define MAX_ARG 256

/* the private directory and the one libFuzzer runs in (its corpus paths are relative to it) */
static int priv_fd = -1, orig_fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The device stub: the CLI's error line, then the library's "no device" error. */
const char *cli_default_device(void)
{
	return "golden";
}

int cli_open(const struct cli_ctx *ctx, const char *uri, struct tpu_dev **dev,
	     struct tpu_info *info)
{
	(void)info;
	*dev = NULL;
	cli_error(ctx, "device '%s': no device in the fuzzer", uri);
	return -ENODEV;
}

static void save(const char *name, enum npy_dtype dt, unsigned rank, const size_t *shape,
		 const void *data)
{
	struct npy_array a = { .dtype = dt, .rank = rank, .count = 1, .data = (void *)data };
	char err[256];

	for (unsigned i = 0; i < NPY_MAX_RANK; i++) {
		a.shape[i] = i < rank ? shape[i] : 1;
		a.count *= a.shape[i];
	}
	FUZZ_CHECK(npy_save(name, &a, 0, err, sizeof(err)) == 0, "fixture %s: %s", name, err);
}

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out;
	char buf[4096];
	size_t n;

	if (!in)
		return; /* no model file: the harness runs without one */
	out = fopen(to, "wb");
	FUZZ_CHECK(out != NULL, "cannot create %s", to);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		FUZZ_CHECK(fwrite(buf, 1, n, out) == n, "cannot write %s", to);
	fclose(in);
	FUZZ_CHECK(fclose(out) == 0, "cannot write %s", to);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char dir[] = "/tmp/tpu-fuzz-cli-XXXXXX";
	static const int8_t a[6] = { 1, -2, 3, -4, 5, -6 }, b[12] = { 1, 2, 3, 4, 5, 6 };
	static const int32_t bias[4] = { 1, -1, 2, -2 }, mult[4] = { 1 << 30, 1 << 30, 1 << 30, 1 };
	static const int32_t shift[4] = { 0, -1, 1, -31 };
	static uint8_t x[2 * 8 * 8], y[2] = { 3, 7 };
	static int8_t lut[256];
	char model[4096];
	const char *src = getenv("TPU_FUZZ_MODEL");

	(void)argc;
	(void)argv;
	/* the shipped model, found from the tree root (make fuzz runs there) */
	snprintf(model, sizeof(model), "%s", src ? src : "models/digits-mlp.tpum");
	if (model[0] != '/') {
		char cwd[2048];
		FUZZ_CHECK(getcwd(cwd, sizeof(cwd)) != NULL, "getcwd failed");
		snprintf(model, sizeof(model), "%s/%s", cwd, src ? src : "models/digits-mlp.tpum");
	}
	orig_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	FUZZ_CHECK(orig_fd >= 0 && mkdtemp(dir) && chdir(dir) == 0, "no private directory");
	priv_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	unsetenv("TPU_DEVICE");
	save("A.npy", NPY_INT8, 2, (size_t[]){ 2, 3 }, a);
	save("B.npy", NPY_INT8, 2, (size_t[]){ 3, 4 }, b);
	save("bias.npy", NPY_INT32, 1, (size_t[]){ 4 }, bias);
	save("M.npy", NPY_INT32, 1, (size_t[]){ 4 }, mult);
	save("S.npy", NPY_INT32, 1, (size_t[]){ 4 }, shift);
	save("L.npy", NPY_INT8, 1, (size_t[]){ 256 }, lut);
	save("X.npy", NPY_UINT8, 3, (size_t[]){ 2, 8, 8 }, x);
	save("Y.npy", NPY_UINT8, 1, (size_t[]){ 2 }, y);
	copy_file(model, "model.tpum");
	FUZZ_CHECK(priv_fd >= 0 && fchdir(orig_fd) == 0, "cannot go back");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char args[MAX_ARGS][MAX_ARG];
	static char errbuf[8192];
	char *argv[MAX_ARGS + 2];
	int argc = 1, rc;
	size_t at = 0;
	FILE *cap, *out, *real_err = stderr, *real_out = stdout;

	argv[0] = (char *)"tpu";
	while (at < size && argc <= MAX_ARGS) {
		size_t len = 0;
		char *arg = args[argc - 1];
		while (at < size && data[at] != '\0') {
			if (len + 1 < MAX_ARG)
				arg[len++] = data[at] == '/' ? '_' : (char)data[at];
			at++;
		}
		at++; /* the NUL */
		arg[len] = '\0';
		argv[argc++] = arg;
	}
	argv[argc] = NULL;
	cap = fmemopen(errbuf, sizeof(errbuf), "w");
	out = fopen("/dev/null", "w");
	FUZZ_CHECK(cap && out, "no capture streams");
	stderr = cap;
	stdout = out;
	FUZZ_CHECK(fchdir(priv_fd) == 0, "fchdir");
	rc = cli_main(argc, argv);
	FUZZ_CHECK(fchdir(orig_fd) == 0, "fchdir");
	fflush(cap);
	stderr = real_err;
	stdout = real_out;
	long n = ftell(cap);
	fclose(cap);
	fclose(out);
	errbuf[n >= 0 && (size_t)n < sizeof(errbuf) ? n : (long)sizeof(errbuf) - 1] = '\0';
	FUZZ_CHECK(rc == 0 || rc == 1 || rc == 2, "exit status %d", rc);
	if (rc != 0) {
		const char *nl = strchr(errbuf, '\n');
		FUZZ_CHECK(nl && nl[1] == '\0', "exit %d with stderr '%s' (not exactly one line)", rc,
			   errbuf);
	}
	/* no output file is ever written: only the fixtures are here */
	return 0;
}
