/* UART framing: CRC-16, byte stuffing, and the receiver (uart_frame.h). */
#include <string.h>

#include "uart_frame.h"

enum { DEC_HUNT, DEC_BODY, DEC_DONE };

uint16_t tpu_uart_crc16(uint16_t crc, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		crc ^= (uint16_t)(b[i] << 8);
		for (int k = 0; k < 8; k++)
			crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
	}
	return crc;
}

int tpu_uart_len_ok(uint8_t type, size_t len)
{
	switch (type) {
	case TPU_UART_MRD: return len == 12;
	case TPU_UART_MWR: return len >= 12 && len <= 11 + TPU_UART_MWR_MAX;
	case TPU_UART_MSI: return len == 13;
	case TPU_UART_MCPL: return len == 6;
	case TPU_UART_WACK: return len == 2;
	case TPU_UART_CPL: return len >= 2 && len <= 2 + TPU_UART_CPL_CHUNK;
	case TPU_UART_MREQ: return len == 8;
	case TPU_UART_ACK:
	case TPU_UART_NAK: return len == 1;
	default: return 0;
	}
}

static size_t put(uint8_t *out, size_t o, uint8_t b)
{
	if (b == TPU_UART_FLAG || b == TPU_UART_ESC) {
		out[o++] = TPU_UART_ESC;
		b ^= TPU_UART_XOR;
	}
	out[o++] = b;
	return o;
}

size_t tpu_uart_encode(uint8_t type, const uint8_t *payload, size_t len, uint8_t *out,
		       size_t cap)
{
	uint8_t hdr[3] = { type, (uint8_t)len, (uint8_t)(len >> 8) };
	uint16_t crc;
	size_t o = 0;

	if (!tpu_uart_len_ok(type, len) || cap < TPU_UART_WIRE_MAX(len))
		return 0;
	crc = tpu_uart_crc16(0xFFFFu, hdr, 3);
	crc = tpu_uart_crc16(crc, payload, len);
	out[o++] = TPU_UART_FLAG;
	for (int i = 0; i < 3; i++)
		o = put(out, o, hdr[i]);
	for (size_t i = 0; i < len; i++)
		o = put(out, o, payload[i]);
	o = put(out, o, (uint8_t)(crc >> 8));
	o = put(out, o, (uint8_t)crc);
	out[o++] = TPU_UART_FLAG;
	return o;
}

void tpu_uart_dec_init(struct tpu_uart_dec *d)
{
	memset(d, 0, sizeof(*d));
	d->state = DEC_HUNT;
}

uint64_t tpu_uart_dec_bad(const struct tpu_uart_dec *d)
{
	return d->bad_crc + d->bad_len + d->aborted + d->junk_runs;
}

/* The logical (unstuffed) byte b of the frame body. */
static int body_byte(struct tpu_uart_dec *d, uint8_t b)
{
	size_t len = d->len;

	d->crc = tpu_uart_crc16(d->crc, &b, 1);
	switch (d->n) {
	case 0: d->type = b; break;
	case 1: d->len = b; break;
	case 2:
		d->len = (uint16_t)(d->len | b << 8);
		if (!tpu_uart_len_ok(d->type, d->len)) {
			d->bad_len++;
			d->state = DEC_HUNT;
			d->junk = 0;
			return -1;
		}
		break;
	default:
		if (d->n < len + 3)
			d->buf[d->n - 3] = b;
		else if (d->n == len + 4) {
			d->state = DEC_DONE;
			d->crc_ok = d->crc == 0;
		}
		break;
	}
	d->n++;
	return 0;
}

int tpu_uart_dec_byte(struct tpu_uart_dec *d, uint8_t b)
{
	int ret = 0;

	if (b == TPU_UART_FLAG) {
		/* Closes a complete frame (only then is it accepted) and opens the next. */
		if (d->state == DEC_DONE) {
			if (d->crc_ok) {
				d->good++;
				ret = 1;
			} else {
				d->bad_crc++;
				ret = -1;
			}
		} else if (d->state == DEC_BODY && (d->n || d->esc)) {
			d->aborted++;
			ret = -1;
		} else if (d->junk) {
			d->junk_runs++;
			ret = -1;
		}
		d->state = DEC_BODY;
		d->junk = 0;
		d->esc = 0;
		d->n = 0;
		d->crc = 0xFFFFu;
		return ret;
	}
	switch (d->state) {
	case DEC_HUNT:
		d->junk = 1;
		return 0;
	case DEC_DONE:
		/* A byte too many. */
		d->aborted++;
		d->state = DEC_HUNT;
		d->junk = 0;
		return -1;
	default:
		break;
	}
	if (b == TPU_UART_ESC && !d->esc) {
		d->esc = 1;
		return 0;
	}
	if (d->esc)
		b ^= TPU_UART_XOR;
	d->esc = 0;
	return body_byte(d, b);
}
