/* Simulated board byte stream with line faults (uart_sim.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uart_sim.h"

#if defined(__GNUC__)
#define WEAK __attribute__((weak))
#else
#error "weak symbols needed for the optional Verilated boards"
#endif

extern const struct tpu_uart_board_model tpu_uart_board_n4 WEAK;
extern const struct tpu_uart_board_model tpu_uart_board_n8 WEAK;

struct tpu_uart_sim {
	const struct tpu_uart_board_model *m;
	void *h;
	struct tpu_uart_sim_cfg cfg;
	uint64_t count[2]; /* bytes seen per direction */
	uint64_t cycles;
	unsigned fired;
};

unsigned tpu_uart_boards(const struct tpu_uart_board_model **out, unsigned max)
{
	const struct tpu_uart_board_model *all[2] = { &tpu_uart_board_n4, &tpu_uart_board_n8 };
	unsigned n = 0;

	for (unsigned i = 0; i < 2; i++) {
		if (!all[i])
			continue;
		if (n < max)
			out[n] = all[i];
		n++;
	}
	return n;
}

static int parse_rule(struct tpu_uart_fault *f, const char *r, size_t len)
{
	char buf[64], *at, *caret, *end;
	unsigned long long nth;
	unsigned long x = 1;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, r, len);
	buf[len] = '\0';
	at = strchr(buf, '@');
	if (!at)
		return -EINVAL;
	*at++ = '\0';
	caret = strchr(at, '^');
	if (caret)
		*caret++ = '\0';
	if (!strcmp(buf, "h2d_drop") || !strcmp(buf, "h2d_flip"))
		f->dir = TPU_UART_H2D;
	else if (!strcmp(buf, "d2h_drop") || !strcmp(buf, "d2h_flip"))
		f->dir = TPU_UART_D2H;
	else
		return -EINVAL;
	f->kind = strstr(buf, "drop") ? TPU_UART_FAULT_DROP : TPU_UART_FAULT_FLIP;
	if (*at < '0' || *at > '9')
		return -EINVAL;
	errno = 0;
	nth = strtoull(at, &end, 10);
	if (errno || *end || nth == 0)
		return -EINVAL;
	if (caret) {
		if (f->kind != TPU_UART_FAULT_FLIP || !*caret)
			return -EINVAL;
		x = strtoul(caret, &end, 16);
		if (*end || x == 0 || x > 0xFF)
			return -EINVAL;
	}
	f->nth = nth;
	f->xor_v = (uint8_t)x;
	return 0;
}

int tpu_uart_sim_parse_faults(struct tpu_uart_sim_cfg *cfg, const char *spec)
{
	const char *p = spec;

	if (!p || !*p)
		return -EINVAL;
	while (p) {
		const char *plus = strchr(p, '+');
		size_t len = plus ? (size_t)(plus - p) : strlen(p);

		if (cfg->nfaults == TPU_UART_SIM_FAULTS_MAX)
			return -EINVAL;
		if (parse_rule(&cfg->faults[cfg->nfaults], p, len))
			return -EINVAL;
		cfg->nfaults++;
		p = plus ? plus + 1 : NULL;
	}
	return 0;
}

int tpu_uart_sim_create(const struct tpu_uart_sim_cfg *cfg, struct tpu_uart_sim **out,
			const char **what)
{
	static _Thread_local char msg[96];
	const struct tpu_uart_board_model *list[4];
	unsigned n = tpu_uart_boards(list, 4);
	struct tpu_uart_sim *s;
	int err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (unsigned i = 0; i < n && i < 4 && !s->m; i++)
		if (!cfg->n || list[i]->array_n == cfg->n)
			s->m = list[i];
	if (!s->m) {
		size_t used = (size_t)snprintf(msg, sizeof(msg), "n=%u (built boards:", cfg->n);
		for (unsigned i = 0; i < n && i < 4 && used < sizeof(msg); i++)
			used += (size_t)snprintf(msg + used, sizeof(msg) - used, " n=%u",
						 list[i]->array_n);
		if (used < sizeof(msg))
			snprintf(msg + used, sizeof(msg) - used, "%s)", n ? "" : " none");
		*what = msg;
		free(s);
		return -ENOENT;
	}
	s->cfg = *cfg;
	err = s->m->create(cfg->seed, &s->h);
	if (err) {
		free(s);
		return err;
	}
	*out = s;
	return 0;
}

void tpu_uart_sim_destroy(struct tpu_uart_sim *s)
{
	if (!s)
		return;
	s->m->destroy(s->h);
	free(s);
}

/* Apply the faults to byte *b, the next one of direction dir: 0 keep, 1 drop. */
static int fault(struct tpu_uart_sim *s, enum tpu_uart_dir dir, uint8_t *b)
{
	uint64_t idx = ++s->count[dir];

	for (unsigned i = 0; i < s->cfg.nfaults; i++) {
		const struct tpu_uart_fault *f = &s->cfg.faults[i];
		if (f->dir != dir || f->nth != idx)
			continue;
		s->fired++;
		if (f->kind == TPU_UART_FAULT_DROP)
			return 1;
		*b ^= f->xor_v;
	}
	return 0;
}

int tpu_uart_sim_write(struct tpu_uart_sim *s, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t c = b[i];
		int err;

		if (fault(s, TPU_UART_H2D, &c))
			continue;
		err = s->m->send(s->h, &c, 1);
		if (err)
			return err;
	}
	return 0;
}

long tpu_uart_sim_read(struct tpu_uart_sim *s, uint8_t *b, size_t cap, uint64_t max_cycles)
{
	size_t got = 0;

	while (got < cap && max_cycles) {
		uint64_t ran = 0;
		uint8_t c;
		int r = s->m->run(s->h, max_cycles, &c, &ran);

		s->cycles += ran;
		max_cycles -= ran < max_cycles ? ran : max_cycles;
		if (r < 0)
			return r;
		if (r == 0)
			break;
		if (!fault(s, TPU_UART_D2H, &c))
			b[got++] = c;
		/* Return with what arrived; a dropped byte does not end the wait. */
		if (got)
			break;
	}
	return (long)got;
}

uint64_t tpu_uart_sim_cycles(const struct tpu_uart_sim *s)
{
	return s->cycles;
}

uint32_t tpu_uart_sim_clk_hz(const struct tpu_uart_sim *s)
{
	return s->m->clk_hz;
}

uint64_t tpu_uart_sim_bytes(const struct tpu_uart_sim *s, enum tpu_uart_dir dir)
{
	return s->count[dir];
}

int tpu_uart_sim_add_fault(struct tpu_uart_sim *s, const struct tpu_uart_fault *f)
{
	if (s->cfg.nfaults == TPU_UART_SIM_FAULTS_MAX)
		return -ENOSPC;
	s->cfg.faults[s->cfg.nfaults++] = *f;
	return 0;
}

unsigned tpu_uart_sim_faults_fired(const struct tpu_uart_sim *s)
{
	return s->fired;
}
