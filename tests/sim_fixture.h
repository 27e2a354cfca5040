/* Helpers shared by the tests that run on the Verilated device ("sim" backend). */
#ifndef TPU_TESTS_SIM_FIXTURE_H
#define TPU_TESTS_SIM_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "tpu/tpu.h"

/* True when this binary has a Verilated model with array size n (else the sim tests skip,
 * printing why once). */
bool sim_have(uint32_t n);

/* The simulated device's link statistics and counters for dev (a "sim" device). */
struct sim_counts {
	uint64_t cycles, irqs, dma_after_reset, protocol_errors, mem_refused, faults_fired;
	uint64_t assert_failures, trace_hash;
};
void sim_counts(tpu_dev *dev, struct sim_counts *out);

/* For a sim device (nothing for another): no DMA after a reset or disable, no protocol error, no
 * access host memory refused, no RTL assertion failed. */
void sim_check_link_clean(tpu_dev *dev);

/* Print the link's state and statistics of a sim device on stderr (for failure reports). */
void sim_dump(tpu_dev *dev, const char *why);

/* Run fn(arg) in a forked child and return the 64-bit value it reports (the child's exit
 * status must be 0). Children start from the same process state, so two runs see the same
 * IOVA layout: that is what makes "same seed twice" comparable within one test. */
uint64_t sim_run_in_child(uint64_t (*fn)(void *arg), void *arg);

#endif
