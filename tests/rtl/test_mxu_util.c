/* Driver of a Verilated tpu_datapath for the MXU tests (see test_mxu_util.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "test_mxu_util.h"

#define MXU_TIMEOUT 200000u

static int chance(struct mxu_dp *d, int pct)
{
	return (int)harness_range(&d->rng, 0, 99) < pct;
}

void mxu_dp_open(struct mxu_dp *d, const struct tpu_vdp_ops *ops, uint64_t seed, int idle_pct)
{
	memset(d, 0, sizeof(*d));
	d->ops = ops;
	d->n = ops->n;
	d->rng = seed;
	d->idle_pct = idle_pct;
	d->m = ops->create(seed);
	ck_assert_ptr_nonnull(d->m);
	d->in.rst = 1;
	for (int i = 0; i < 3; i++)
		mxu_dp_step(d);
	d->in.rst = 0;
}

void mxu_dp_close(struct mxu_dp *d)
{
	d->ops->destroy(d->m);
	free(d->wq);
	free(d->wq_tr);
	free(d->rd);
}

void mxu_dp_step(struct mxu_dp *d)
{
	unsigned n = d->n;

	/* weight stream: a row once offered stays offered until taken */
	if (!d->w_offer && d->wq_head < d->wq_len && !chance(d, d->idle_pct))
		d->w_offer = 1;
	d->in.wpush_valid = d->w_offer;
	if (d->w_offer) {
		for (unsigned j = 0; j < n; j++) {
			d->in.wpush_lane[j] = d->wq[d->wq_head * n + j];
			d->in.wpush_row[j] = (int8_t)(uint8_t)d->in.wpush_lane[j];
		}
		d->in.wpush_transpose = d->wq_tr[d->wq_head / n];
	} else {
		for (unsigned j = 0; j < n; j++) {
			d->in.wpush_lane[j] = (uint16_t)harness_rand(&d->rng);
			d->in.wpush_row[j] = (int8_t)(uint8_t)d->in.wpush_lane[j];
		}
		d->in.wpush_transpose = (int)(harness_rand(&d->rng) & 1);
	}
	d->in.rd_ready = !chance(d, d->idle_pct);

	d->ops->step(d->m, &d->in, &d->out);
	if (!d->in.rst) {
		if (d->in.wpush_valid && d->out.wpush_ready) {
			d->wq_head++;
			d->w_offer = 0;
		}
		if (d->out.rd_valid && d->in.rd_ready) {
			if (d->rd_rows == d->rd_cap) {
				d->rd_cap = d->rd_cap ? 2 * d->rd_cap : 64;
				d->rd = realloc(d->rd, d->rd_cap * n * sizeof(uint32_t));
				ck_assert_ptr_nonnull(d->rd);
			}
			memcpy(d->rd + d->rd_rows * n, d->out.rd_data, n * sizeof(uint32_t));
			d->rd_rows++;
			d->rd_lasts += (unsigned)d->out.rd_last;
		}
		if (d->out.mm_done) {
			d->mm_done++;
			d->last_mm_done_cycle = d->cycle;
		}
		if (d->out.act_done) {
			d->act_done++;
			d->act_result = d->out.act_result;
			d->last_act_done_cycle = d->cycle;
		}
	}
	d->cycle++;
}

static uint16_t *queue_tile(struct mxu_dp *d, int transpose)
{
	unsigned n = d->n;
	uint16_t *q;
	if (d->wq_len + n > d->wq_cap) {
		d->wq_cap = (d->wq_len + n) * 2;
		d->wq = realloc(d->wq, d->wq_cap * n * sizeof(*d->wq));
		d->wq_tr = realloc(d->wq_tr, (d->wq_cap / n + 1) * sizeof(int));
		ck_assert(d->wq && d->wq_tr);
	}
	q = d->wq + d->wq_len * n;
	d->wq_tr[d->wq_len / n] = transpose;
	d->wq_len += n;
	return q;
}

void mxu_dp_push_tile(struct mxu_dp *d, const int8_t *rows, int transpose)
{
	uint16_t *q = queue_tile(d, transpose);
	for (unsigned i = 0; i < d->n * d->n; i++) {
		uint16_t hi = d->ops->lane_bits == 16 ? (uint16_t)(harness_rand(&d->rng) << 8) : 0;
		q[i] = (uint16_t)(hi | (uint8_t)rows[i]);
	}
}

void mxu_dp_push_tile16(struct mxu_dp *d, const uint16_t *rows, int transpose)
{
	ck_assert_uint_eq(d->ops->lane_bits, 16);
	memcpy(queue_tile(d, transpose), rows, (size_t)d->n * d->n * sizeof(*rows));
}

void mxu_dp_cmd(struct mxu_dp *d, unsigned op, unsigned flags, uint32_t a, uint32_t b,
		uint32_t rows, const void *data, size_t data_bytes)
{
	uint32_t *c = d->in.cmd;
	unsigned n = d->n;

	while (chance(d, d->idle_pct)) {
		d->in.cmd_valid = 0;
		for (unsigned i = 0; i < TPU_VM_CMD_WORDS; i++)
			c[i] = (uint32_t)harness_rand(&d->rng);
		c[0] = (c[0] & ~0xfu) | 0xfu; /* an illegal op while not valid: never looked at */
		mxu_dp_step(d);
	}
	memset(c, 0, sizeof(d->in.cmd));
	c[0] = (op & 0xf) | (flags & 0xf) << 4 | (a & 0xffffff) << 8;
	c[1] = a >> 24 | (b & 0xffffff) << 8;
	c[2] = b >> 24 | (rows & 0xffffff) << 8;
	c[3] = rows >> 24;
	/* data at bit 104 = word 3, bit 8: one UB row of N lanes (zero-padded) */
	uint8_t bytes[2 * TPU_VM_MAX_N] = {0};
	unsigned row_bytes = n * d->ops->lane_bits / 8;
	ck_assert_uint_le(data_bytes, row_bytes);
	if (data_bytes)
		memcpy(bytes, data, data_bytes);
	for (unsigned i = 0; i < row_bytes; i++) {
		unsigned bit = 104 + 8 * i;
		c[bit / 32] |= (uint32_t)bytes[i] << (bit % 32);
	}
	d->in.cmd_valid = 1;
	for (unsigned t = 0;; t++) {
		ck_assert_msg(t < MXU_TIMEOUT, "command op %u not accepted", op);
		mxu_dp_step(d);
		if (d->out.cmd_ready) {
			d->last_accept_cycle = d->cycle - 1;
			break;
		}
	}
	d->in.cmd_valid = 0;
}

void mxu_dp_drain(struct mxu_dp *d)
{
	for (unsigned t = 0;; t++) {
		ck_assert_msg(t < MXU_TIMEOUT, "datapath did not drain");
		mxu_dp_step(d);
		if (d->wq_head == d->wq_len && d->out.idle && !d->w_offer)
			break;
	}
}

void mxu_dp_write_ub(struct mxu_dp *d, uint32_t addr, const int8_t *row)
{
	mxu_dp_cmd(d, TPU_VDP_UB_WRITE, 0, addr, 0, 0, row, d->n);
}

void mxu_dp_write_ub16(struct mxu_dp *d, uint32_t addr, const uint16_t *row)
{
	uint8_t b[2 * TPU_VM_MAX_N];
	ck_assert_uint_eq(d->ops->lane_bits, 16);
	for (unsigned k = 0; k < d->n; k++) {
		b[2 * k] = (uint8_t)row[k];
		b[2 * k + 1] = (uint8_t)(row[k] >> 8);
	}
	mxu_dp_cmd(d, TPU_VDP_UB_WRITE, 0, addr, 0, 0, b, 2 * d->n);
}

void mxu_dp_param(struct mxu_dp *d, unsigned kind, unsigned index, uint32_t value)
{
	uint8_t b[4] = {(uint8_t)value, (uint8_t)(value >> 8), (uint8_t)(value >> 16),
			(uint8_t)(value >> 24)};
	mxu_dp_cmd(d, TPU_VDP_PARAM, kind, index, 0, 0, b, 4);
}

static void read_rows(struct mxu_dp *d, unsigned op, uint32_t addr, uint32_t rows)
{
	size_t before = d->rd_rows;
	unsigned lasts = d->rd_lasts;
	mxu_dp_cmd(d, op, 0, addr, 0, rows, NULL, 0);
	for (unsigned t = 0; d->rd_rows < before + rows; t++) {
		ck_assert_msg(t < MXU_TIMEOUT, "read of %u rows timed out", rows);
		mxu_dp_step(d);
	}
	ck_assert_uint_eq(d->rd_lasts, lasts + 1);
	ck_assert_msg(d->rd_rows == before + rows, "extra read rows");
}

void mxu_dp_read_ub(struct mxu_dp *d, uint32_t addr, uint32_t rows, int8_t *out)
{
	size_t base = d->rd_rows;
	read_rows(d, TPU_VDP_UB_READ, addr, rows);
	for (uint32_t r = 0; r < rows; r++) {
		const uint32_t *w = d->rd + (base + r) * d->n;
		for (unsigned j = 0; j < d->n; j++) {
			/* the UB row is packed in the low N bytes of the bus */
			uint32_t v = w[j / 4] >> (8 * (j % 4));
			out[r * d->n + j] = (int8_t)(uint8_t)v;
		}
		for (unsigned j = (d->n + 3) / 4; j < d->n; j++)
			ck_assert_msg(w[j] == 0, "UB read: upper bits not zero");
	}
}

void mxu_dp_read_ub16(struct mxu_dp *d, uint32_t addr, uint32_t rows, uint16_t *out)
{
	size_t base = d->rd_rows;
	ck_assert_uint_eq(d->ops->lane_bits, 16);
	read_rows(d, TPU_VDP_UB_READ, addr, rows);
	for (uint32_t r = 0; r < rows; r++) {
		const uint32_t *w = d->rd + (base + r) * d->n;
		for (unsigned j = 0; j < d->n; j++)
			out[r * d->n + j] = (uint16_t)(w[j / 2] >> (16 * (j % 2)));
		for (unsigned j = (d->n + 1) / 2; j < d->n; j++)
			ck_assert_msg(w[j] == 0, "UB read: bits above the 16N-bit row not zero");
	}
}

void mxu_dp_read_acc(struct mxu_dp *d, uint32_t addr, uint32_t rows, int32_t *out)
{
	size_t base = d->rd_rows;
	read_rows(d, TPU_VDP_ACC_READ, addr, rows);
	for (uint32_t r = 0; r < rows; r++)
		for (unsigned j = 0; j < d->n; j++)
			out[r * d->n + j] = (int32_t)d->rd[(base + r) * d->n + j];
}
