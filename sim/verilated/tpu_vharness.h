// Shared helpers of the Verilated model harnesses (*_harness.cpp): bus packing for Verilator's
// port types and a per-instance VerilatedContext seeded from the caller.
#ifndef TPU_VHARNESS_H
#define TPU_VHARNESS_H

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "verilated.h"

namespace tpu_vh {

// Bit-level copy between a port and an array of 32-bit words.
static inline void put(CData &d, const uint32_t *w, int) { d = (CData)w[0]; }
static inline void put(SData &d, const uint32_t *w, int) { d = (SData)w[0]; }
static inline void put(IData &d, const uint32_t *w, int) { d = w[0]; }
static inline void put(QData &d, const uint32_t *w, int bits)
{
	d = w[0] | (bits > 32 ? (QData)w[1] << 32 : 0);
}
template <std::size_t W> static inline void put(VlWide<W> &d, const uint32_t *w, int bits)
{
	for (std::size_t i = 0; i < W; i++)
		d[i] = (int)(i * 32) < bits ? w[i] : 0;
}
static inline void get(const CData &s, uint32_t *w, int) { w[0] = s; }
static inline void get(const SData &s, uint32_t *w, int) { w[0] = s; }
static inline void get(const IData &s, uint32_t *w, int) { w[0] = s; }
static inline void get(const QData &s, uint32_t *w, int bits)
{
	w[0] = (uint32_t)s;
	if (bits > 32)
		w[1] = (uint32_t)(s >> 32);
}
template <std::size_t W> static inline void get(const VlWide<W> &s, uint32_t *w, int bits)
{
	for (std::size_t i = 0; i < W && (int)(i * 32) < bits; i++)
		w[i] = s[i];
}

// Pack n lanes of `bits` each (bits = 8, 16 or 32) from/to words.
static inline void lanes_to_words(const void *lanes, unsigned n, unsigned bits, uint32_t *w)
{
	unsigned words = (n * bits + 31) / 32;
	for (unsigned i = 0; i < words; i++)
		w[i] = 0;
	for (unsigned j = 0; j < n; j++) {
		uint32_t v = bits == 8	 ? (uint8_t)((const int8_t *)lanes)[j]
			     : bits == 16 ? ((const uint16_t *)lanes)[j]
					  : ((const uint32_t *)lanes)[j];
		unsigned bit = j * bits;
		w[bit / 32] |= v << (bit % 32);
	}
}
static inline void words_to_lanes(const uint32_t *w, unsigned n, unsigned bits, void *lanes)
{
	for (unsigned j = 0; j < n; j++) {
		unsigned bit = j * bits;
		uint32_t v = w[bit / 32] >> (bit % 32);
		if (bits == 8)
			((int8_t *)lanes)[j] = (int8_t)(uint8_t)v;
		else if (bits == 16)
			((uint16_t *)lanes)[j] = (uint16_t)v;
		else
			((uint32_t *)lanes)[j] = v;
	}
}

// A context with random initial state from `seed` (printed by the caller's test).
static inline std::unique_ptr<VerilatedContext> make_context(uint64_t seed)
{
	auto ctx = std::make_unique<VerilatedContext>();
	std::string s = "+verilator+seed+" + std::to_string((unsigned)(seed % 2147483647u) + 1);
	const char *argv[] = {"tpu", "+verilator+rand+reset+2", s.c_str()};
	ctx->commandArgs(3, argv);
	ctx->fatalOnError(true);
	return ctx;
}

// One Verilated model with its own seeded context; create() leaves it in reset with the clock
// low, ready for the first step.
template <class V> struct inst {
	std::unique_ptr<VerilatedContext> ctx;
	V *top;
};

template <class V> static inline void *create(uint64_t seed)
{
	inst<V> *m = new inst<V>;
	m->ctx = make_context(seed);
	m->top = new V(m->ctx.get(), "top");
	m->top->clk_i = 0;
	m->top->rst_i = 1;
	m->top->eval();
	return m;
}

template <class V> static inline void destroy(void *p)
{
	inst<V> *m = (inst<V> *)p;
	m->top->final();
	delete m->top;
	delete m;
}

} // namespace tpu_vh

#endif
