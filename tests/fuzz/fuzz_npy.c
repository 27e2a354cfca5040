/* libFuzzer harness: the CLI's .npy reader (sw/cli/npy.c). Each input is a file's bytes, read
 * through a memfd. Oracle: no crash or sanitizer report; a failure is one of npy.h's errors with a
 * one-line message; an accepted array has count = product of the shape and loads the same again
 * after npy_save (round trip through the writer). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/npy.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int in_fd = -1, out_fd = -1;
	static char in_path[64], out_path[64];
	struct npy_array a, b;
	char err[256];
	int rc;

	if (in_fd < 0) {
		in_fd = fuzz_memfd("npy-in", in_path, sizeof(in_path));
		out_fd = fuzz_memfd("npy-out", out_path, sizeof(out_path));
	}
	fuzz_fill(in_fd, data, size);
	rc = npy_load(in_path, NPY_RANK1 | NPY_RANK2 | NPY_RANK3 | NPY_RANK4, &a, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == -EINVAL || rc == -ENOTSUP || rc == -EOVERFLOW || rc == -ENOMEM,
			   "npy_load: unexpected %d (%s)", rc, err);
		FUZZ_CHECK(err[0] && !strchr(err, '\n'), "npy_load: message '%s'", err);
		return 0;
	}
	size_t count = 1;
	for (unsigned i = 0; i < a.rank; i++)
		count *= a.shape[i];
	FUZZ_CHECK(count == a.count && a.data, "npy_load: count %zu, shape product %zu", a.count,
		   count);
	/* the writer's file loads back to the same array (the memfd is written in place) */
	fuzz_fill(out_fd, NULL, 0);
	rc = npy_save(out_path, &a, 0, err, sizeof(err));
	FUZZ_CHECK(rc == 0, "npy_save of a loaded array: %d (%s)", rc, err);
	rc = npy_load(out_path, NPY_RANK1 | NPY_RANK2 | NPY_RANK3 | NPY_RANK4, &b, err,
		      sizeof(err));
	FUZZ_CHECK(rc == 0, "reload: %d (%s)", rc, err);
	FUZZ_CHECK(b.dtype == a.dtype && b.rank == a.rank && b.count == a.count &&
			   !memcmp(b.shape, a.shape, sizeof(a.shape)) &&
			   !memcmp(b.data, a.data, a.count * npy_dtype_size(a.dtype)),
		   "round trip changed the array");
	npy_free(&a);
	npy_free(&b);
	return 0;
}
