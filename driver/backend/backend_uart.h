/* The "uart" and "uart-sim" backends (backend_uart.c): statistics for tests and tools. */
#ifndef TPU_DRIVER_BACKEND_UART_H
#define TPU_DRIVER_BACKEND_UART_H

#include <stdint.h>

struct tpu_dev;
struct tpu_uart_sim;

struct tpu_uart_stats {
	uint64_t frames_good;  /* device -> host frames accepted (duplicates included) */
	uint64_t frames_bad;   /* device -> host frames rejected (CRC, length, lost bytes) */
	uint64_t frames_dup;   /* frames sent again by the board after a lost ACK: ignored */
	uint64_t naks;         /* NAKs sent */
	uint64_t mmio_retries; /* MMIO requests sent again after no answer */
	uint64_t mmio_lost;    /* MMIO requests given up (all-ones / no effect) */
	uint64_t mrd, mwr, irqs;
	uint64_t rd_bytes, wr_bytes;
	uint64_t mem_refused;     /* DMA outside host memory (reads answered UR) */
	uint64_t protocol_errors; /* good frames that made no sense (wrong type, length) */
};

/* Statistics of dev's uart link; -EINVAL when dev is not a uart or uart-sim device. */
int tpu_backend_uart_stats(struct tpu_dev *dev, struct tpu_uart_stats *out);
/* The simulated board behind a "uart-sim" device, or NULL. */
struct tpu_uart_sim *tpu_backend_uart_sim_of(struct tpu_dev *dev);

#endif /* TPU_DRIVER_BACKEND_UART_H */
