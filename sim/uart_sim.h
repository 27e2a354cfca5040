/* The byte stream to and from a simulated board (uart_board.h) as the "uart-sim" backend sees
 * it, with exactly placed line faults: each rule drops or corrupts the Nth byte
 * of one direction. Time is the board's clock: reads clock the model. */
#ifndef TPU_SIM_UART_SIM_H
#define TPU_SIM_UART_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "uart_board.h"

struct tpu_uart_sim;

enum tpu_uart_fault_kind { TPU_UART_FAULT_DROP, TPU_UART_FAULT_FLIP };
enum tpu_uart_dir { TPU_UART_H2D, TPU_UART_D2H };

#define TPU_UART_SIM_FAULTS_MAX 8u

struct tpu_uart_fault {
	enum tpu_uart_dir dir;
	enum tpu_uart_fault_kind kind;
	uint64_t nth;  /* 1-based index of the byte in its direction */
	uint8_t xor_v; /* FLIP: the byte is XORed with this (non-zero) */
};

struct tpu_uart_sim_cfg {
	uint32_t n; /* board model by array size (0: the smallest built) */
	uint64_t seed;
	unsigned nfaults;
	struct tpu_uart_fault faults[TPU_UART_SIM_FAULTS_MAX];
};

/* Parse "RULE+RULE..." with RULE = (h2d|d2h)_(drop|flip)@N[^X] (X: hex XOR mask, default 01)
 * into cfg. Returns 0 or -EINVAL. */
int tpu_uart_sim_parse_faults(struct tpu_uart_sim_cfg *cfg, const char *spec);

/* The board builds linked in: up to max into out, ordered by N; returns how many exist. */
unsigned tpu_uart_boards(const struct tpu_uart_board_model **out, unsigned max);

/* Create the board. Returns 0, -ENOENT (no board with that n: *what says which exist),
 * -ENOMEM. */
int tpu_uart_sim_create(const struct tpu_uart_sim_cfg *cfg, struct tpu_uart_sim **out,
			const char **what);
void tpu_uart_sim_destroy(struct tpu_uart_sim *s);
/* Send n bytes to the board (faults applied). Returns 0 or -ENOMEM. */
int tpu_uart_sim_write(struct tpu_uart_sim *s, const uint8_t *b, size_t n);
/* Clock the board up to max_cycles, returning as soon as bytes from it are available: the
 * number stored in b (up to cap, faults applied), 0 when none came, -EIO on a model assertion
 * failure. */
long tpu_uart_sim_read(struct tpu_uart_sim *s, uint8_t *b, size_t cap, uint64_t max_cycles);
uint64_t tpu_uart_sim_cycles(const struct tpu_uart_sim *s);
/* Board clock in Hz (the model's notional clock: cycles per microsecond = clk_hz / 1e6). */
uint32_t tpu_uart_sim_clk_hz(const struct tpu_uart_sim *s);
/* Bytes that have passed (or been dropped) in direction dir so far. */
uint64_t tpu_uart_sim_bytes(const struct tpu_uart_sim *s, enum tpu_uart_dir dir);
/* Add a fault rule (its nth counts from the start, see tpu_uart_sim_bytes). 0 or -ENOSPC. */
int tpu_uart_sim_add_fault(struct tpu_uart_sim *s, const struct tpu_uart_fault *f);
/* Faults that have fired so far. */
unsigned tpu_uart_sim_faults_fired(const struct tpu_uart_sim *s);

#endif /* TPU_SIM_UART_SIM_H */
