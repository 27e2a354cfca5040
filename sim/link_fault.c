/* Link configuration: defaults, checks and the fault-spec parser (the faults= URI option). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "link.h"

static const char *const fault_names[TPU_FAULT_KINDS] = {
	[TPU_FAULT_DROP_CPL] = "drop",     [TPU_FAULT_UR_CPL] = "ur",
	[TPU_FAULT_CA_CPL] = "ca",         [TPU_FAULT_POISON_CPL] = "poison",
	[TPU_FAULT_DELAY_CPL] = "delay",   [TPU_FAULT_DROP_MSI] = "msi_drop",
	[TPU_FAULT_DUP_MSI] = "msi_dup",   [TPU_FAULT_ALL_ONES] = "allones",
};

const char *tpu_link_fault_name(int kind)
{
	if (kind < 0 || kind >= TPU_FAULT_KINDS)
		return kind == -1 ? "assert" : kind == -2 ? "mem_refused" : "?";
	return fault_names[kind];
}

void tpu_link_cfg_default(struct tpu_link_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->clock_ps = 1000;
	cfg->latency_ns = 50;
	cfg->bw_d2h = 16000;
	cfg->bw_h2d = 16000;
	cfg->link_bytes = 32;
	cfg->max_payload = 256;
	cfg->max_read_req = 512;
	cfg->tags = 32;
	cfg->seed = 1;
	cfg->mmio_timeout_cycles = 1000000;
	cfg->reset_grace_cycles = 2;
}

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

int tpu_link_cfg_check(const struct tpu_link_cfg *cfg, const char **what)
{
	if (cfg->clock_ps == 0) {
		*what = "clock";
		return -EINVAL;
	}
	if (cfg->latency_ns > 1000000u) {
		*what = "latency (at most 1000000 ns)";
		return -EINVAL;
	}
	if (!is_pow2(cfg->link_bytes) || cfg->link_bytes < 4 || cfg->link_bytes > TPU_LINK_BEAT_MAX) {
		*what = "link_bytes (a power of two, 4..64)";
		return -EINVAL;
	}
	if (cfg->max_payload < 4 || cfg->max_payload > 4096 || cfg->max_read_req < 4 ||
	    cfg->max_read_req > 4096) {
		*what = "max_payload/max_read_req (4..4096)";
		return -EINVAL;
	}
	if (cfg->tags < 1 || cfg->tags > 256) {
		*what = "tags (1..256)";
		return -EINVAL;
	}
	if (cfg->nfaults > TPU_LINK_MAX_FAULTS) {
		*what = "faults (too many rules)";
		return -EINVAL;
	}
	return 0;
}

/* Unsigned decimal or 0x-hex in [s, e). */
static int parse_num(const char *s, const char *e, uint64_t *out)
{
	uint64_t v = 0, base = 10;

	if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (s == e)
		return -EINVAL;
	for (; s < e; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -EINVAL;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* A probability "0", "1", "0.25", ".5" -> parts per million (exact, no floating point). */
static int parse_prob(const char *s, const char *e, uint32_t *ppm)
{
	uint64_t ip = 0, frac = 0, scale = 1000000;
	const char *dot = memchr(s, '.', (size_t)(e - s));

	if (s == e)
		return -EINVAL;
	if (dot != s && parse_num(s, dot ? dot : e, &ip))
		return -EINVAL;
	if (dot) {
		const char *p = dot + 1;
		if (p == e || e - p > 6)
			return -EINVAL;
		for (; p < e; p++) {
			if (*p < '0' || *p > '9')
				return -EINVAL;
			scale /= 10;
			frac += (uint64_t)(*p - '0') * scale;
		}
	}
	if (ip > 1 || (ip == 1 && frac))
		return -EINVAL;
	*ppm = (uint32_t)(ip * 1000000u + frac);
	return 0;
}

/* Position of the first of chars in [s, e), or e. */
static const char *find_any(const char *s, const char *e, const char *chars)
{
	for (; s < e; s++)
		if (strchr(chars, *s))
			return s;
	return e;
}

static int parse_rule(const char *s, const char *e, struct tpu_link_fault *f)
{
	const char *p = find_any(s, e, "=@%~");
	int k;

	memset(f, 0, sizeof(*f));
	f->hi = UINT64_MAX;
	f->ppm = 1000000;
	for (k = 0; k < TPU_FAULT_KINDS; k++)
		if (strlen(fault_names[k]) == (size_t)(p - s) &&
		    memcmp(fault_names[k], s, (size_t)(p - s)) == 0)
			break;
	if (k == TPU_FAULT_KINDS)
		return -EINVAL;
	f->kind = (enum tpu_link_fault_kind)k;
	if (k == TPU_FAULT_DELAY_CPL) {
		const char *q;
		if (p == e || *p != '=')
			return -EINVAL; /* delay needs its amount */
		q = find_any(p + 1, e, "@%~");
		if (parse_num(p + 1, q, &f->delay_ns) || f->delay_ns == 0 ||
		    f->delay_ns > 1000000000ull)
			return -EINVAL;
		p = q;
	}
	while (p < e) {
		char c = *p;
		const char *q = find_any(p + 1, e, "@%~");
		if (c == '@') {
			if (parse_num(p + 1, q, &f->nth) || f->nth == 0)
				return -EINVAL;
		} else if (c == '%') {
			if (parse_prob(p + 1, q, &f->ppm))
				return -EINVAL;
		} else if (c == '~') {
			const char *dash = memchr(p + 1, '-', (size_t)(q - p - 1));
			if (!dash || parse_num(p + 1, dash, &f->lo) ||
			    parse_num(dash + 1, q, &f->hi) || f->hi < f->lo)
				return -EINVAL;
		} else {
			return -EINVAL;
		}
		p = q;
	}
	return 0;
}

int tpu_link_parse_faults(struct tpu_link_cfg *cfg, const char *spec, const char **what)
{
	const char *s = spec;

	if (!spec || !*spec) {
		*what = "faults (empty)";
		return -EINVAL;
	}
	for (;;) {
		const char *e = strchr(s, '+');
		if (!e)
			e = s + strlen(s);
		if (cfg->nfaults >= TPU_LINK_MAX_FAULTS) {
			*what = s;
			return -EINVAL;
		}
		if (parse_rule(s, e, &cfg->faults[cfg->nfaults])) {
			*what = s;
			return -EINVAL;
		}
		cfg->nfaults++;
		if (!*e)
			break;
		s = e + 1;
	}
	return 0;
}
