/* libFuzzer harness: the model loader (driver/model/model_file.c, tpu_model_load_mem). Oracle: no
 * crash or sanitizer report; a refusal is -EINVAL or -ENOMEM with a one-line message; an accepted
 * model validates, and tpu_model_save writes back exactly the input bytes (the reader accepts
 * one encoding per model, the one the writer produces). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "tpu/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	static uint8_t back[1 << 20];
	struct tpu_model *m;
	struct stat st;
	char err[256];
	int rc;

	if (fd < 0)
		fd = fuzz_memfd("model", path, sizeof(path));
	rc = tpu_model_load_mem(data, size, &m, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == -EINVAL || rc == -ENOMEM, "load: unexpected %d (%s)", rc, err);
		FUZZ_CHECK(err[0] && !strchr(err, '\n'), "load: message '%s'", err);
		FUZZ_CHECK(m == NULL, "load failed but returned a model");
		return 0;
	}
	FUZZ_CHECK(tpu_model_validate(m, err, sizeof(err)) == 0, "loaded model invalid: %s", err);
	fuzz_fill(fd, NULL, 0);
	rc = tpu_model_save(m, path, err, sizeof(err));
	FUZZ_CHECK(rc == 0, "save of a loaded model: %d (%s)", rc, err);
	FUZZ_CHECK(fstat(fd, &st) == 0 && (size_t)st.st_size == size, "saved %lld bytes, loaded %zu",
		   (long long)st.st_size, size);
	if (size <= sizeof(back)) {
		FUZZ_CHECK(pread(fd, back, size, 0) == (ssize_t)size, "pread failed");
		FUZZ_CHECK(!memcmp(back, data, size), "save(load(x)) differs from x");
	}
	tpu_model_free(m);
	return 0;
}
