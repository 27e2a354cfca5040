/* The Verilator seed of a run seed, shared by the Verilated harnesses (C and C++).
 * +verilator+seed+S takes 31 bits and reads 0 as "pick one at random", so the 64-bit run seed is
 * folded to 31 bits (its low bits XOR the bits above them) and a 0 becomes 2^30. Seeds that
 * differ by less than 2^30 get distinct Verilator seeds: a soak's consecutive case seeds each
 * start the RTL from their own random state. */
#ifndef TPU_SIM_VSEED_H
#define TPU_SIM_VSEED_H

#include <stdint.h>

static inline unsigned tpu_verilator_seed(uint64_t seed)
{
	unsigned v = (unsigned)((seed ^ (seed >> 31)) & 0x7fffffffu);

	return v ? v : 0x40000000u;
}

#endif /* TPU_SIM_VSEED_H */
