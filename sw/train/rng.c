/* The one PRNG of the training tool: splitmix64 (Steele, Lea, Flood 2014). Chosen for being
 * tiny, fast and fully specified, so training is reproducible without libc's rand(). */
#include "train.h"

uint64_t tr_rand_u64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

double tr_rand_unit(uint64_t *state)
{
	return (double)(tr_rand_u64(state) >> 11) * (1.0 / 9007199254740992.0);
}

void tr_shuffle(size_t *idx, size_t n, uint64_t *state)
{
	for (size_t i = n; i > 1; i--) {
		/* the modulo bias is below 2^-50 for the sizes used here; determinism is what
		 * matters */
		size_t j = (size_t)(tr_rand_u64(state) % i);
		size_t t = idx[i - 1];

		idx[i - 1] = idx[j];
		idx[j] = t;
	}
}
