/* The device-side stand-in of the link tests (link_standin.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "link_standin.h"
#include "tpu/tpu_spec.h"

static uint64_t sm(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void standin_init(struct standin *s, unsigned link_bytes, unsigned tags, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->regs[TPU_REG_ID / 4] = TPU_ID;
	s->rd_delay = 2;
	s->link_bytes = link_bytes;
	s->tags = tags;
	s->hcpl_ready_ppm = 1000000;
	s->rng = seed;
	for (unsigned t = 0; t < 256; t++)
		s->tag_op[t] = -1;
}

static unsigned add(struct standin *s, int kind, uint64_t addr, uint32_t len)
{
	struct standin_op *o = &s->ops[s->nops];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->addr = addr;
	o->len = len;
	return s->nops++;
}

unsigned standin_mrd(struct standin *s, uint64_t addr, uint32_t len)
{
	return add(s, TPU_LINK_MRD, addr, len);
}

unsigned standin_mwr(struct standin *s, uint64_t addr, const void *data, uint32_t len)
{
	unsigned i = add(s, TPU_LINK_MWR, addr, len);
	memcpy(s->ops[i].data, data, len);
	return i;
}

unsigned standin_msi(struct standin *s, uint64_t addr, uint32_t data)
{
	unsigned i = add(s, TPU_LINK_MSI, addr, 4);
	memcpy(s->ops[i].data, &data, 4);
	return i;
}

bool standin_all_done(const struct standin *s)
{
	for (unsigned i = 0; i < s->nops; i++)
		if (!s->ops[i].done)
			return false;
	return true;
}

static int free_tag(const struct standin *s)
{
	for (unsigned t = 0; t < s->tags; t++)
		if (s->tag_op[t] < 0)
			return (int)t;
	return -1;
}

/* The beat the stand-in offers this cycle (deterministic in its state, so it holds while
 * stalled). */
static void offer(struct standin *s, struct tpu_link_out *out)
{
	struct standin_op *o;

	if (s->next >= s->nops || (s->stopped && !s->ignore_disable))
		return;
	o = &s->ops[s->next];
	out->dreq_kind = (uint8_t)o->kind;
	out->dreq_len = (uint16_t)o->len;
	out->dreq_addr = o->addr;
	if (o->kind == TPU_LINK_MRD) {
		int t = free_tag(s);
		if (t < 0)
			return;
		out->dreq_tag = (uint8_t)t;
		out->dreq_last = 1;
	} else if (o->kind == TPU_LINK_MSI) {
		memcpy(out->dreq_data, o->data, 4);
		out->dreq_last = 1;
	} else {
		uint32_t off = s->beat * s->link_bytes;
		uint32_t n = o->len - off < s->link_bytes ? o->len - off : s->link_bytes;
		memcpy(out->dreq_data, o->data + off, n);
		out->dreq_last = off + n >= o->len;
	}
	out->dreq_valid = 1;
}

static void mreq(struct standin *s, const struct tpu_link_in *in)
{
	uint32_t idx = (uint32_t)in->mreq_addr / 4u;

	if (in->mreq_write) {
		if (in->mreq_addr == TPU_REG_CC) {
			if (!(in->mreq_wdata & TPU_CC_EN_MASK) && (s->regs[idx] & TPU_CC_EN_MASK))
				s->stopped = true;
			if (in->mreq_wdata & TPU_CC_EN_MASK)
				s->stopped = false;
		}
		if (in->mreq_addr == TPU_REG_RESET && in->mreq_wdata == TPU_RESET_MAGIC)
			s->stopped = true;
		if (idx < STANDIN_REGS)
			s->regs[idx] = in->mreq_wdata;
		return;
	}
	if (s->rsp_n < 64) {
		unsigned k = (s->rsp_head + s->rsp_n) % 64;
		s->rsp[k].tag = in->mreq_tag;
		s->rsp[k].val = idx < STANDIN_REGS ? s->regs[idx] : 0;
		s->rsp[k].ready = s->cycle + s->rd_delay;
		s->rsp_n++;
	}
}

static void hcpl(struct standin *s, const struct tpu_link_in *in)
{
	int i = s->tag_op[in->hcpl_tag];
	struct standin_op *o;
	uint32_t off, n;

	if (i < 0)
		return; /* not ours: the test checks done flags */
	o = &s->ops[i];
	if (in->hcpl_status != TPU_LINK_OK) {
		o->status = in->hcpl_status;
		if (!in->hcpl_last)
			o->beat_error = true;
	} else {
		off = o->beats_seen * s->link_bytes;
		n = off < o->len ? (o->len - off < s->link_bytes ? o->len - off : s->link_bytes) : 0;
		memcpy(o->data + off, in->hcpl_data, n);
		o->got += n;
		o->beats_seen++;
		if ((o->got >= o->len) != (in->hcpl_last != 0))
			o->beat_error = true;
	}
	if (in->hcpl_last) {
		o->done = true;
		o->done_cycle = s->cycle;
		s->tag_op[in->hcpl_tag] = -1;
		s->tags_used--;
	}
}

void standin_step(struct standin *s, int rst, const struct tpu_link_in *in,
		  struct tpu_link_out *out)
{
	memset(out, 0, sizeof(*out));
	if (rst) {
		s->cycle++;
		return;
	}
	offer(s, out);
	out->mreq_ready = 1;
	out->hcpl_ready = s->hcpl_ready_ppm >= 1000000u || sm(&s->rng) % 1000000u < s->hcpl_ready_ppm;
	if (s->rsp_n && s->rsp[s->rsp_head].ready <= s->cycle) {
		out->mcpl_valid = 1;
		out->mcpl_tag = s->rsp[s->rsp_head].tag;
		out->mcpl_rdata = s->rsp[s->rsp_head].val;
	}
	/* rising edge */
	if (out->mcpl_valid && in->mcpl_ready) {
		s->rsp_head = (s->rsp_head + 1) % 64;
		s->rsp_n--;
	}
	if (in->hcpl_valid && out->hcpl_ready)
		hcpl(s, in);
	if (out->dreq_valid && in->dreq_ready) {
		struct standin_op *o = &s->ops[s->next];
		if (!o->issued) {
			o->issued = true;
			o->issue_cycle = s->cycle;
		}
		if (o->kind == TPU_LINK_MRD) {
			s->tag_op[out->dreq_tag] = (int)s->next;
			s->tags_used++;
			s->next++;
		} else if (out->dreq_last) {
			o->done = true;
			o->done_cycle = s->cycle;
			s->beat = 0;
			s->next++;
		} else {
			s->beat++;
		}
	}
	if (in->mreq_valid && out->mreq_ready)
		mreq(s, in);
	s->cycle++;
}

uint64_t standin_run(struct tpu_link *l, struct standin *s, uint64_t n, bool until_done)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		struct tpu_link_in in;
		struct tpu_link_out out;
		if (until_done && standin_all_done(s))
			break;
		tpu_link_drive(l, &in);
		standin_step(s, 0, &in, &out);
		tpu_link_commit(l, &in, &out);
	}
	return i;
}

static int standin_create(const struct tpu_sim_model *m, uint64_t seed, const char *trace,
			  void **h)
{
	struct standin *s;

	if (trace)
		return -EINVAL; /* no waveforms from a C model */
	s = malloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	standin_init(s, m->link_bytes, m->tags, seed);
	*h = s;
	return 0;
}

static void standin_destroy(void *h)
{
	free(h);
}

static int standin_model_step(void *h, int rst, const struct tpu_link_in *in,
			      struct tpu_link_out *out)
{
	standin_step(h, rst, in, out);
	return 0;
}

const struct tpu_sim_model standin_model = {
	.name = "standin",
	.array_n = 4, .ub_rows = 16, .acc_rows = 16, .fifo_tiles = 1, .num_queues = 1,
	.num_windows = 1, .max_queue_entries = 16,
	.link_bytes = 32, .max_payload = 256, .max_read_req = 512, .tags = 32,
	.create = standin_create,
	.destroy = standin_destroy,
	.step = standin_model_step,
};
