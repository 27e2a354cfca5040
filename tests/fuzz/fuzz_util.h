/* Small helpers shared by the libFuzzer harnesses (tests/fuzz/). */
#ifndef TPU_FUZZ_UTIL_H
#define TPU_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* An oracle violation: the message, then abort() so that libFuzzer saves the input. */
#define FUZZ_CHECK(cond, ...)                                                            \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "fuzz oracle: " __VA_ARGS__);                    \
			fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__);               \
			abort();                                                         \
		}                                                                        \
	} while (0)

/* An anonymous in-memory file; *path receives a name that opens it ("/proc/self/fd/N"). */
int fuzz_memfd(const char *name, char *path, size_t len);
/* Make fd hold exactly data[0..size) (size 0: empty). */
void fuzz_fill(int fd, const uint8_t *data, size_t size);

/* A cursor over the fuzzer's input: bytes run out as zeros. */
struct fuzz_in {
	const uint8_t *p;
	size_t n, off;
};
uint8_t fuzz_u8(struct fuzz_in *in);
uint32_t fuzz_u32(struct fuzz_in *in);
int fuzz_more(const struct fuzz_in *in);

#endif /* TPU_FUZZ_UTIL_H */
