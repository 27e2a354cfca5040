/* Framing of the link packets on a UART (docs/link.md "UART link"), host side. The same format
 * is spoken by rtl/board/tpu_uart_bridge.sv on the board:
 *   wire:  0x7E, stuffed(TYPE, LEN[7:0], LEN[15:8], PAYLOAD[LEN], CRC[15:8], CRC[7:0]), 0x7E
 *   stuff: 0x7E and 0x7D inside a frame go out as 0x7D, byte ^ 0x20
 *   CRC:   CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor) over
 *          TYPE, LEN and PAYLOAD; sent high byte first, so the CRC over a whole good frame is 0.
 * A frame is accepted only when its closing flag arrives right after the last CRC byte, so a
 * frame with a byte missing or one too many is always rejected, and a changed byte is caught
 * by the CRC. */
#ifndef TPU_DRIVER_UART_FRAME_H
#define TPU_DRIVER_UART_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define TPU_UART_FLAG 0x7Eu
#define TPU_UART_ESC 0x7Du
#define TPU_UART_XOR 0x20u

/* Frame types. Device -> host frames start with the bridge's SEQ byte (stop-and-wait: the host
 * ACKs each good one; a duplicate SEQ is acknowledged again and otherwise ignored). */
enum tpu_uart_type {
	TPU_UART_MRD = 0x01,  /* SEQ TAG LEN[2] ADDR[8] */
	TPU_UART_MWR = 0x02,  /* SEQ LEN[2] ADDR[8] DATA[LEN] */
	TPU_UART_MSI = 0x03,  /* SEQ ADDR[8] DATA[4] */
	TPU_UART_MCPL = 0x04, /* SEQ TAG RDATA[4] */
	TPU_UART_WACK = 0x05, /* SEQ TAG: an MMIO write reached the device */
	TPU_UART_CPL = 0x81,  /* TAG FLAGS DATA[0..32]: FLAGS[1:0] status, [6:2] chunk number
			       * mod 32, [7] last; the chunks of a completion back to back */
	TPU_UART_MREQ = 0x82, /* TAG WRITE ADDR[2] WDATA[4] */
	TPU_UART_ACK = 0x83,  /* SEQ */
	TPU_UART_NAK = 0x84,  /* SEQ: a bad frame arrived; send the current one again now */
};

/* Data bytes per CPL frame, at most (the bridge's receive buffer). */
#define TPU_UART_CPL_CHUNK 32u
#define TPU_UART_CPL_LAST 0x80u
/* Largest MWR data the host accepts (the device's MaxPayload is at most 4096). */
#define TPU_UART_MWR_MAX 4096u
#define TPU_UART_PAYLOAD_MAX (11u + TPU_UART_MWR_MAX)
/* Wire bytes of a frame with len payload bytes, worst case (every byte stuffed). */
#define TPU_UART_WIRE_MAX(len) (2u + 2u * (5u + (size_t)(len)))

/* CRC-16/CCITT-FALSE of n bytes, continuing from crc (start with 0xFFFF). */
uint16_t tpu_uart_crc16(uint16_t crc, const void *p, size_t n);

/* 1 when len is a legal payload length for type (either direction), else 0. */
int tpu_uart_len_ok(uint8_t type, size_t len);

/* Encode one frame into out (cap bytes). Returns the wire length, or 0 when len is not legal
 * for type or cap is too small. */
size_t tpu_uart_encode(uint8_t type, const uint8_t *payload, size_t len, uint8_t *out,
		       size_t cap);

/* Receiver state: feed it every byte of the line. */
struct tpu_uart_dec {
	int state; /* private */
	int esc, junk, crc_ok;
	size_t n;
	uint16_t crc;
	/* the last good frame */
	uint8_t type;
	uint16_t len;
	uint8_t buf[TPU_UART_PAYLOAD_MAX];
	/* counters */
	uint64_t good, bad_crc, bad_len, aborted, junk_runs;
};

void tpu_uart_dec_init(struct tpu_uart_dec *d);
/* Feed one byte. Returns 1 when it completed a good frame (type, len, buf hold it until the
 * next call), -1 when it showed that a frame was bad (counted), else 0. */
int tpu_uart_dec_byte(struct tpu_uart_dec *d, uint8_t b);
/* Bad frames seen so far. */
uint64_t tpu_uart_dec_bad(const struct tpu_uart_dec *d);

#endif /* TPU_DRIVER_UART_FRAME_H */
