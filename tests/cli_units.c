/* The CLI's self-contained units (the .npy reader/writer and the naive reference GEMM) compiled
 * into the test runner, which links only tests/ and libtpu.a: the Makefile builds sw/cli/ into
 * the tpu binary alone. test_npy.c, test_cli.c and test_numerics_gemmlowp.c use them. */
#include "cli/npy.c"
#include "cli/reference.c"
