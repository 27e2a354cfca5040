// Harness of one Verilated tpu_board_top build (rtl/board/tpu_board_top.sv), exported to C as a
// struct tpu_uart_board_model (sim/uart_board.h) named BOARD_SYM. Compiled by mk/uart.mk with
// -DVMODEL=<class> -DVMODEL_H='"<class>.h"' -DBOARD_SYM=<symbol> -DBOARD_NAME='"n4"' and
// -DP_N, -DP_CLK_HZ, -DP_BAUD matching the -G parameters of the build (mk/uart.mk).
//
// The harness is the host's UART: it drives uart_rx_i with 8N1 characters from a byte queue
// (clk_div cycles per bit, back to back) and decodes uart_tx_o with mid-bit sampling (the
// start bit checked at half a bit, then one sample per bit, stop bit must be 1; a character
// with a bad stop bit is dropped, as a real UART would). Inputs are applied with the clock low,
// outputs sampled after the rising edge. Each instance owns its VerilatedContext, started with
// +verilator+rand+reset+2 +verilator+seed+<seed>.
#include <cerrno>
#include <cstdint>
#include <deque>
#include <new>
#include <string>

#include VMODEL_H
#include "uart_board.h"
#include "vseed.h"
#include "verilated.h"

namespace {

constexpr unsigned kResetCycles = 16;
// clock cycles per UART bit (the board's tpu_uart_bridge divides the same way)
#define P_CLK_DIV (P_CLK_HZ / P_BAUD)

struct Handle {
	VerilatedContext *ctx;
	VMODEL *top;
	std::deque<uint8_t> txq; // bytes still to send to the board
	// line encoder: the character being sent
	bool sending = false;
	uint16_t frame = 0; // start, 8 data bits, stop; LSB first
	unsigned bit = 0, bit_cyc = 0;
	// line decoder
	enum { Idle, Start, Data, WaitIdle } rx = Idle;
	unsigned rx_cnt = 0, rx_bit = 0;
	uint8_t rx_shift = 0;
	int errors_seen = 0;
	bool got_error_seen = false;
};

void cycle(Handle *h, int rst)
{
	VMODEL *t = h->top;

	// next line level towards the board
	if (!h->sending && !h->txq.empty()) {
		h->frame = (uint16_t)(0x200u | ((unsigned)h->txq.front() << 1));
		h->txq.pop_front();
		h->sending = true;
		h->bit = 0;
		h->bit_cyc = 0;
	}
	t->uart_rx_i = h->sending ? (h->frame >> h->bit) & 1u : 1u;
	if (h->sending && ++h->bit_cyc == P_CLK_DIV) {
		h->bit_cyc = 0;
		if (++h->bit == 10)
			h->sending = false;
	}
	t->rst_i = rst ? 1 : 0;
	t->clk_i = 0;
	t->eval();
	h->ctx->timeInc(1);
	t->clk_i = 1;
	t->eval();
	h->ctx->timeInc(1);
}

// Decode uart_tx_o after a cycle; 1 with *byte when a character completed.
int decode(Handle *h, uint8_t *byte)
{
	unsigned line = h->top->uart_tx_o & 1u;

	switch (h->rx) {
	case Handle::Idle:
		if (!line) {
			h->rx = Handle::Start;
			h->rx_cnt = P_CLK_DIV / 2 - 1;
		}
		return 0;
	case Handle::Start:
		if (h->rx_cnt) {
			h->rx_cnt--;
		} else if (line) {
			h->rx = Handle::Idle;
		} else {
			h->rx = Handle::Data;
			h->rx_cnt = P_CLK_DIV - 1;
			h->rx_bit = 0;
		}
		return 0;
	case Handle::Data:
		if (h->rx_cnt) {
			h->rx_cnt--;
			return 0;
		}
		if (h->rx_bit < 8) {
			h->rx_shift = (uint8_t)((h->rx_shift >> 1) | (line << 7));
			h->rx_bit++;
			h->rx_cnt = P_CLK_DIV - 1;
			return 0;
		}
		if (line) {
			h->rx = Handle::Idle;
			*byte = h->rx_shift;
			return 1;
		}
		h->rx = Handle::WaitIdle;
		return 0;
	default:
		if (line)
			h->rx = Handle::Idle;
		return 0;
	}
}

int create(uint64_t seed, void **out)
{
	Handle *h = new (std::nothrow) Handle{};
	if (!h)
		return -ENOMEM;
	unsigned vseed = tpu_verilator_seed(seed); // 31 bits, non-zero (vseed.h)
	std::string seed_arg = "+verilator+seed+" + std::to_string(vseed);
	const char *argv[] = {"tpu_board", "+verilator+rand+reset+2", seed_arg.c_str()};
	h->ctx = new VerilatedContext;
	h->ctx->fatalOnError(false);
	h->ctx->commandArgs(3, argv);
	h->top = new VMODEL{h->ctx, "top"};
	h->top->clk_i = 0;
	h->top->rst_i = 1;
	h->top->uart_rx_i = 1;
	h->top->eval();
	for (unsigned i = 0; i < kResetCycles; i++)
		cycle(h, 1);
	*out = h;
	return 0;
}

void destroy(void *vh)
{
	Handle *h = static_cast<Handle *>(vh);
	if (!h)
		return;
	h->top->final();
	delete h->top;
	delete h->ctx;
	delete h;
}

int send(void *vh, const uint8_t *b, size_t n)
{
	Handle *h = static_cast<Handle *>(vh);
	try {
		h->txq.insert(h->txq.end(), b, b + n);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	}
	return 0;
}

int run(void *vh, uint64_t max_cycles, uint8_t *byte, uint64_t *ran)
{
	Handle *h = static_cast<Handle *>(vh);
	uint64_t n = 0;
	int got = 0;

	while (n < max_cycles && !got) {
		cycle(h, 0);
		n++;
		got = decode(h, byte);
	}
	*ran = n;
	if (h->ctx->errorCount() != h->errors_seen || (h->ctx->gotError() && !h->got_error_seen)) {
		h->errors_seen = h->ctx->errorCount();
		h->got_error_seen = h->ctx->gotError();
		return -EIO;
	}
	return got;
}

} // namespace

extern "C" const struct tpu_uart_board_model BOARD_SYM = {
	BOARD_NAME, P_N, P_CLK_DIV, P_CLK_HZ, create, destroy, send, run,
};
