/* Runs every suite registered with TPU_TEST_SUITE; see harness.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MAX_SUITES 128

static harness_suite_fn suites[MAX_SUITES];
static const char *names[MAX_SUITES];
static int n_suites;

void harness_register(harness_suite_fn fn, const char *name)
{
	if (n_suites == MAX_SUITES) {
		fprintf(stderr, "harness: more than %d suites\n", MAX_SUITES);
		abort();
	}
	names[n_suites] = name;
	suites[n_suites++] = fn;
}

uint64_t harness_seed(void)
{
	const char *s = getenv("TPU_SEED");
	return s ? strtoull(s, NULL, 0) : 0x7470755f73656564ull;
}

uint64_t harness_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

int64_t harness_range(uint64_t *state, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)(hi - lo) + 1;
	return span ? lo + (int64_t)(harness_rand(state) % span) : (int64_t)harness_rand(state);
}

static int wanted(const char *name, int argc, char **argv)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (strstr(name, argv[i]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	SRunner *sr = NULL;
	printf("tests: seed 0x%" PRIx64 " (set TPU_SEED to reproduce)\n", harness_seed());
	for (int i = 0; i < n_suites; i++) {
		if (!wanted(names[i], argc, argv))
			continue;
		Suite *s = suites[i]();
		if (!sr)
			sr = srunner_create(s);
		else
			srunner_add_suite(sr, s);
	}
	if (!sr) {
		fprintf(stderr, "tests: no suite matches\n");
		return 2;
	}
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
