/* Test harness: each test file (tests/, *.c) registers its Check suite with TPU_TEST_SUITE, and
 * tests/main.c runs every registered suite in one SRunner (one Check summary line).
 *   build/tests/tpu_tests              all suites
 *   build/tests/tpu_tests NAME...      only the suites whose function name contains NAME
 *   CK_FORK=no build/tests/tpu_tests   no fork, for gdb
 * Random tests print their seed; TPU_SEED=n reproduces a run. */
#ifndef TPU_TESTS_HARNESS_H
#define TPU_TESTS_HARNESS_H

#include <check.h>
#include <stdint.h>

typedef Suite *(*harness_suite_fn)(void);
void harness_register(harness_suite_fn fn, const char *name);

#define TPU_TEST_SUITE(fn)                                                          \
	static Suite *fn(void);                                                     \
	__attribute__((constructor)) static void harness_register_##fn(void)        \
	{                                                                           \
		harness_register(fn, #fn);                                          \
	}

/* The run's base seed (TPU_SEED or a fixed default), printed once by main. */
uint64_t harness_seed(void);
/* A small, fast, reproducible PRNG for tests (splitmix64). */
uint64_t harness_rand(uint64_t *state);
/* Uniform in [lo, hi] (inclusive). */
int64_t harness_range(uint64_t *state, int64_t lo, int64_t hi);

#endif
