/* A simulated FPGA board: the Verilated rtl/board/tpu_board_top.sv (tpu_uart_bridge + tpu_device)
 * seen only through its two UART pins, as a byte stream each way. Built by mk/uart.mk from
 * sim/verilated/tpu_board_harness.cpp (one build per parameter set, symbol
 * tpu_uart_board_<name>); the "uart-sim" backend drives it through sim/uart_sim.h. */
#ifndef TPU_SIM_UART_BOARD_H
#define TPU_SIM_UART_BOARD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tpu_uart_board_model {
	const char *name; /* "n4" */
	/* The build's parameters: array size, clock cycles per UART bit, clock in Hz. */
	uint32_t array_n, clk_div, clk_hz;
	/* Create an instance, held in reset for its first cycles; seed drives Verilator's random
	 * initial state. Returns 0 or -ENOMEM. */
	int (*create)(uint64_t seed, void **h);
	void (*destroy)(void *h);
	/* Queue n bytes to be sent to the board's uart_rx_i (8N1, clk_div cycles per bit, back to
	 * back). Returns 0 or -ENOMEM. */
	int (*send)(void *h, const uint8_t *b, size_t n);
	/* Clock up to max_cycles cycles, stopping after the cycle in which a byte sent by the
	 * board on uart_tx_o was complete: returns 1 with it in *byte, or 0 when none came. *ran:
	 * cycles clocked. -EIO once the model reported an assertion failure or $error. */
	int (*run)(void *h, uint64_t max_cycles, uint8_t *byte, uint64_t *ran);
};

#ifdef __cplusplus
}
#endif
#endif /* TPU_SIM_UART_BOARD_H */
