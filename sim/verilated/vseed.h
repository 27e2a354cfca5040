/* The Verilator seed of a run seed, shared by the Verilated harnesses (C and C++).
 * +verilator+seed+S takes 31 bits and reads 0 as "pick one at random". The seed's low 31 bits
 * are XORed with a hash of the bits above them (a fixed value within each block of 2^31 seeds,
 * so consecutive seeds stay distinct) and a 0 becomes 2^30, which only a seed 2^30 away from it
 * in the same block maps to: a soak's consecutive case seeds each start the RTL from their own
 * random state, and seeds that differ only above bit 30 differ too. */
#ifndef TPU_SIM_VSEED_H
#define TPU_SIM_VSEED_H

#include <stdint.h>

static inline unsigned tpu_verilator_seed(uint64_t seed)
{
	uint64_t z = (seed >> 31) + 0x9E3779B97F4A7C15ull; /* splitmix64 of the high part */
	unsigned v;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	v = (unsigned)((seed ^ z) & 0x7fffffffu);
	return v ? v : 0x40000000u;
}

#endif /* TPU_SIM_VSEED_H */
