/* Helpers of the libFuzzer harnesses; see fuzz_util.h. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_util.h"

int fuzz_memfd(const char *name, char *path, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	FUZZ_CHECK(fd >= 0, "memfd_create failed");
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

void fuzz_fill(int fd, const uint8_t *data, size_t size)
{
	size_t done = 0;

	FUZZ_CHECK(ftruncate(fd, 0) == 0, "ftruncate failed");
	while (done < size) {
		ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);
		FUZZ_CHECK(w > 0, "pwrite failed");
		done += (size_t)w;
	}
}

uint8_t fuzz_u8(struct fuzz_in *in)
{
	return in->off < in->n ? in->p[in->off++] : 0;
}

uint32_t fuzz_u32(struct fuzz_in *in)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)fuzz_u8(in) << (8 * i);
	return v;
}

int fuzz_more(const struct fuzz_in *in)
{
	return in->off < in->n;
}
