// Bit-field access to Verilated ports of any width (CData..QData, VlWide), for the harnesses.
#ifndef TPU_SIM_VBITS_H
#define TPU_SIM_VBITS_H

#include <cstdint>
#include <cstdio>
#include <string>

#include "verilated.h"
#include "vseed.h"

// A context whose random initial state comes from seed (+verilator+rand+reset+2
// +verilator+seed+S, printed with the model's name so that a failing run can be reproduced).
// Failed assertions do not abort: the harness reports them from its step function.
static inline VerilatedContext *vbits_seeded_context(const char *model, const char *prog,
						     uint64_t seed)
{
	unsigned vseed = tpu_verilator_seed(seed); // 31 bits, non-zero (vseed.h)
	std::string seed_arg = "+verilator+seed+" + std::to_string(vseed);
	const char *argv[] = {prog, "+verilator+rand+reset+2", seed_arg.c_str()};
	std::printf("%s: %s %s\n", model, argv[1], argv[2]);
	VerilatedContext *ctx = new VerilatedContext;
	ctx->fatalOnError(false);
	ctx->commandArgs(3, argv);
	return ctx;
}

// Scalar ports (up to 64 bits).
template <typename T> static inline void vbits_set(T &port, unsigned lsb, unsigned width, uint64_t v)
{
	uint64_t mask = width >= 64 ? ~0ull : ((1ull << width) - 1);
	uint64_t cur = (uint64_t)port;
	cur = (cur & ~(mask << lsb)) | ((v & mask) << lsb);
	port = (T)cur;
}
template <typename T> static inline uint64_t vbits_get(const T &port, unsigned lsb, unsigned width)
{
	uint64_t mask = width >= 64 ? ~0ull : ((1ull << width) - 1);
	return ((uint64_t)port >> lsb) & mask;
}

// Wide ports: 32-bit words, bit by bit is fast enough for unit tests.
template <std::size_t W>
static inline void vbits_set(VlWide<W> &port, unsigned lsb, unsigned width, uint64_t v)
{
	for (unsigned i = 0; i < width; i++) {
		unsigned b = lsb + i;
		EData bit = (EData)((v >> i) & 1u);
		port[b / 32] = (port[b / 32] & ~(1u << (b % 32))) | (bit << (b % 32));
	}
}
template <std::size_t W>
static inline uint64_t vbits_get(const VlWide<W> &port, unsigned lsb, unsigned width)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < width; i++) {
		unsigned b = lsb + i;
		v |= (uint64_t)((port[b / 32] >> (b % 32)) & 1u) << i;
	}
	return v;
}

#endif
