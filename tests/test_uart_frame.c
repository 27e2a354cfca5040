/* UART framing (driver/backend/uart_frame.c): the CRC against its published check value, encode/decode
 * round trips, and detection: every single corrupted byte and every dropped byte of a frame on
 * the wire makes the receiver reject that frame, and the next frame still arrives intact. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "uart_frame.h"

/* A random legal frame: type, length and payload (biased towards bytes that need stuffing). */
static size_t random_frame(uint64_t *seed, uint8_t *type, uint8_t *payload)
{
	static const uint8_t types[] = { TPU_UART_MRD, TPU_UART_MWR, TPU_UART_MSI, TPU_UART_MCPL,
					 TPU_UART_WACK, TPU_UART_CPL, TPU_UART_MREQ, TPU_UART_ACK };
	size_t len;

	*type = types[harness_range(seed, 0, sizeof(types) - 1)];
	switch (*type) {
	case TPU_UART_MRD: len = 12; break;
	case TPU_UART_MWR: len = (size_t)harness_range(seed, 12, 11 + 300); break;
	case TPU_UART_MSI: len = 13; break;
	case TPU_UART_MCPL: len = 6; break;
	case TPU_UART_WACK: len = 2; break;
	case TPU_UART_CPL: len = (size_t)harness_range(seed, 2, 2 + TPU_UART_CPL_CHUNK); break;
	case TPU_UART_MREQ: len = 8; break;
	default: len = 1; break;
	}
	for (size_t i = 0; i < len; i++) {
		int r = (int)harness_range(seed, 0, 7);
		payload[i] = r == 0 ? TPU_UART_FLAG : r == 1 ? TPU_UART_ESC
					   : (uint8_t)harness_rand(seed);
	}
	return len;
}

/* Feed n bytes; count good frames and remember the last. */
struct feed {
	unsigned good, bad;
	uint8_t type;
	size_t len;
	uint8_t buf[TPU_UART_PAYLOAD_MAX];
};

static void feed(struct tpu_uart_dec *d, const uint8_t *b, size_t n, struct feed *f)
{
	for (size_t i = 0; i < n; i++) {
		int r = tpu_uart_dec_byte(d, b[i]);
		if (r > 0) {
			f->good++;
			f->type = d->type;
			f->len = d->len;
			memcpy(f->buf, d->buf, d->len);
		} else if (r < 0) {
			f->bad++;
		}
	}
}

START_TEST(crc_check_value)
{
	/* CRC-16/CCITT-FALSE check value (reveng catalogue): "123456789" -> 0x29B1 */
	ck_assert_uint_eq(tpu_uart_crc16(0xFFFF, "123456789", 9), 0x29B1);
	ck_assert_uint_eq(tpu_uart_crc16(0xFFFF, "", 0), 0xFFFF);
	/* appending the CRC high byte first leaves 0 */
	{
		uint8_t m[11] = "123456789";
		m[9] = 0x29;
		m[10] = 0xB1;
		ck_assert_uint_eq(tpu_uart_crc16(0xFFFF, m, 11), 0);
	}
}
END_TEST

START_TEST(encode_known_frame)
{
	/* ACK of SEQ 0x7E: the payload byte is stuffed */
	uint8_t seq = 0x7E, out[32], hdr[4] = { TPU_UART_ACK, 1, 0, 0x7E };
	uint16_t crc = tpu_uart_crc16(0xFFFF, hdr, 4);
	size_t n = tpu_uart_encode(TPU_UART_ACK, &seq, 1, out, sizeof(out));
	size_t o = 0;

	ck_assert_uint_ge(n, 8);
	ck_assert_uint_eq(out[o++], 0x7E);
	ck_assert_uint_eq(out[o++], TPU_UART_ACK);
	ck_assert_uint_eq(out[o++], 1);
	ck_assert_uint_eq(out[o++], 0);
	ck_assert_uint_eq(out[o++], 0x7D);
	ck_assert_uint_eq(out[o++], 0x5E);
	/* CRC high then low, each possibly stuffed */
	for (int k = 1; k >= 0; k--) {
		uint8_t c = (uint8_t)(crc >> (8 * k));
		if (c == 0x7E || c == 0x7D) {
			ck_assert_uint_eq(out[o++], 0x7D);
			ck_assert_uint_eq(out[o++], c ^ 0x20);
		} else {
			ck_assert_uint_eq(out[o++], c);
		}
	}
	ck_assert_uint_eq(out[o++], 0x7E);
	ck_assert_uint_eq(o, n);
}
END_TEST

START_TEST(encode_rejects)
{
	uint8_t p[64] = { 0 }, out[256];

	ck_assert_uint_eq(tpu_uart_encode(TPU_UART_ACK, p, 2, out, sizeof(out)), 0);
	ck_assert_uint_eq(tpu_uart_encode(TPU_UART_MREQ, p, 7, out, sizeof(out)), 0);
	ck_assert_uint_eq(tpu_uart_encode(TPU_UART_CPL, p, 35, out, sizeof(out)), 0);
	ck_assert_uint_eq(tpu_uart_encode(0x42, p, 1, out, sizeof(out)), 0);
	ck_assert_uint_eq(tpu_uart_encode(TPU_UART_MREQ, p, 8, out, 10), 0); /* cap too small */
	ck_assert_int_eq(tpu_uart_len_ok(TPU_UART_MWR, 11), 0);
	ck_assert_int_eq(tpu_uart_len_ok(TPU_UART_MWR, 11 + TPU_UART_MWR_MAX), 1);
	ck_assert_int_eq(tpu_uart_len_ok(TPU_UART_MWR, 12 + TPU_UART_MWR_MAX), 0);
}
END_TEST

START_TEST(roundtrip_random)
{
	uint64_t seed = harness_seed() ^ 0x5541525431ull;
	static uint8_t wire[TPU_UART_WIRE_MAX(TPU_UART_PAYLOAD_MAX)];
	static struct tpu_uart_dec d;
	static struct feed f;
	uint8_t type, payload[400];

	tpu_uart_dec_init(&d);
	for (int i = 0; i < 300; i++) {
		size_t len = random_frame(&seed, &type, payload);
		size_t n = tpu_uart_encode(type, payload, len, wire, sizeof(wire));
		unsigned before = f.good;

		ck_assert_uint_gt(n, 0);
		/* flags only at the ends */
		ck_assert_uint_eq(wire[0], TPU_UART_FLAG);
		ck_assert_uint_eq(wire[n - 1], TPU_UART_FLAG);
		for (size_t k = 1; k + 1 < n; k++)
			ck_assert_uint_ne(wire[k], TPU_UART_FLAG);
		/* sometimes idle flags between frames */
		if (harness_range(&seed, 0, 3) == 0)
			feed(&d, wire, 1, &f);
		feed(&d, wire, n, &f);
		ck_assert_uint_eq(f.good, before + 1);
		ck_assert_uint_eq(f.type, type);
		ck_assert_uint_eq(f.len, len);
		ck_assert_mem_eq(f.buf, payload, len);
	}
	ck_assert_uint_eq(f.bad, 0);
	ck_assert_uint_eq(tpu_uart_dec_bad(&d), 0);
}
END_TEST

/* Frame 1 damaged by edit(), then frame 2 intact: frame 1 is never accepted, a bad frame is
 * reported, frame 2 arrives whole. */
static void check_damaged(const uint8_t *w1, size_t n1, const uint8_t *w2, size_t n2,
			  uint8_t type2, const uint8_t *p2, size_t len2, const char *what,
			  size_t pos)
{
	struct tpu_uart_dec *d = malloc(sizeof(*d));
	struct feed *f = calloc(1, sizeof(*f));

	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_nonnull(f);
	tpu_uart_dec_init(d);
	feed(d, w1, n1, f);
	ck_assert_msg(f->good == 0, "%s at byte %zu of %zu: damaged frame accepted", what, pos,
		      n1);
	feed(d, w2, n2, f);
	ck_assert_msg(f->bad >= 1, "%s at byte %zu of %zu: not detected", what, pos, n1);
	ck_assert_msg(f->good == 1 && f->type == type2 && f->len == len2 &&
			      !memcmp(f->buf, p2, len2),
		      "%s at byte %zu: the next frame was lost", what, pos);
	free(f);
	free(d);
}

START_TEST(every_corrupted_byte_detected)
{
	uint64_t seed = harness_seed() ^ 0x464c4950ull;
	static uint8_t w1[TPU_UART_WIRE_MAX(400)], w2[TPU_UART_WIRE_MAX(400)],
		bad[TPU_UART_WIRE_MAX(400)];
	uint8_t t1, t2, p1[400], p2[400];

	for (int i = 0; i < 40; i++) {
		size_t l1 = random_frame(&seed, &t1, p1), l2 = random_frame(&seed, &t2, p2);
		size_t n1 = tpu_uart_encode(t1, p1, l1, w1, sizeof(w1));
		size_t n2 = tpu_uart_encode(t2, p2, l2, w2, sizeof(w2));

		for (size_t pos = 0; pos < n1; pos++) {
			uint8_t vals[4] = { (uint8_t)(w1[pos] ^ (1u << harness_range(&seed, 0, 7))),
					    (uint8_t)(w1[pos] ^ 0x20), TPU_UART_FLAG, TPU_UART_ESC };
			for (int v = 0; v < 4; v++) {
				if (vals[v] == w1[pos])
					continue;
				memcpy(bad, w1, n1);
				bad[pos] = vals[v];
				check_damaged(bad, n1, w2, n2, t2, p2, l2, "corrupted byte", pos);
			}
		}
	}
}
END_TEST

START_TEST(every_dropped_byte_detected)
{
	uint64_t seed = harness_seed() ^ 0x44524f50ull;
	static uint8_t w1[TPU_UART_WIRE_MAX(400)], w2[TPU_UART_WIRE_MAX(400)],
		bad[TPU_UART_WIRE_MAX(400)];
	uint8_t t1, t2, p1[400], p2[400];

	for (int i = 0; i < 60; i++) {
		size_t l1 = random_frame(&seed, &t1, p1), l2 = random_frame(&seed, &t2, p2);
		size_t n1 = tpu_uart_encode(t1, p1, l1, w1, sizeof(w1));
		size_t n2 = tpu_uart_encode(t2, p2, l2, w2, sizeof(w2));

		/* the closing flag is excluded: frame 2's opening flag closes frame 1 just as well,
		 * so losing it loses nothing */
		for (size_t pos = 0; pos + 1 < n1; pos++) {
			memcpy(bad, w1, pos);
			memcpy(bad + pos, w1 + pos + 1, n1 - pos - 1);
			check_damaged(bad, n1 - 1, w2, n2, t2, p2, l2, "dropped byte", pos);
		}
	}
}
END_TEST

START_TEST(closing_flag_lost_is_harmless)
{
	uint8_t p[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, w[64];
	size_t n = tpu_uart_encode(TPU_UART_MREQ, p, 8, w, sizeof(w));
	struct tpu_uart_dec d;
	struct feed f = { 0 };

	tpu_uart_dec_init(&d);
	feed(&d, w, n - 1, &f);
	ck_assert_uint_eq(f.good, 0);
	feed(&d, w, n, &f); /* the next frame's flag closes the first */
	ck_assert_uint_eq(f.good, 2);
	ck_assert_uint_eq(f.bad, 0);
}
END_TEST

START_TEST(junk_then_resync)
{
	uint8_t junk[5] = { 0x00, 0x55, 0x7D, 0xFF, 0x13 }, p = 9, w[16];
	size_t n = tpu_uart_encode(TPU_UART_ACK, &p, 1, w, sizeof(w));
	struct tpu_uart_dec d;
	struct feed f = { 0 };

	tpu_uart_dec_init(&d);
	feed(&d, junk, sizeof(junk), &f);
	feed(&d, w, n, &f);
	ck_assert_uint_eq(f.good, 1);
	ck_assert_uint_eq(f.bad, 1);
	ck_assert_uint_eq(f.buf[0], 9);
	ck_assert_uint_eq(d.junk_runs, 1);
}
END_TEST

static Suite *uart_frame_suite(void)
{
	Suite *s = suite_create("uart_frame");
	TCase *tc = tcase_create("frame");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, crc_check_value);
	tcase_add_test(tc, encode_known_frame);
	tcase_add_test(tc, encode_rejects);
	tcase_add_test(tc, roundtrip_random);
	tcase_add_test(tc, every_corrupted_byte_detected);
	tcase_add_test(tc, every_dropped_byte_detected);
	tcase_add_test(tc, closing_flag_lost_is_harmless);
	tcase_add_test(tc, junk_then_resync);
	suite_add_tcase(s, tc);
	return s;
}
TPU_TEST_SUITE(uart_frame_suite)
