/* Device URI parsing: "backend[:key=value,...]". The generic options are checked here against the
 * spec's limits so that the message names the option and its range; anything else is handed to
 * the backend as "extra". */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

struct backend_name {
	const char *name;
	const struct tpu_backend_ops *ops; /* NULL: known but not built into this library */
	bool path; /* the first item after ':' is a path ("uart:/dev/ttyUSB1@115200") */
};

static const struct backend_name backends[] = {
	{ "golden", &tpu_backend_golden, false },
	{ "sim", &tpu_backend_sim, false },
	{ "uart", &tpu_backend_uart, true },
	{ "uart-sim", &tpu_backend_uart_sim, false },
};

struct uri_opt {
	const char *key;
	uint64_t min, max;
};

enum { OPT_N, OPT_UB, OPT_ACC, OPT_FIFO, OPT_QUEUES, OPT_WINDOWS, OPT_MQE, OPT_QDEPTH, OPT_MEM,
       OPT_COUNT };

static const struct uri_opt opts[OPT_COUNT] = {
	[OPT_N] = { "n", TPU_ARRAY_N_MIN, TPU_ARRAY_N_MAX },
	[OPT_UB] = { "ub_rows", TPU_UB_ROWS_MIN, TPU_UB_ROWS_MAX },
	[OPT_ACC] = { "acc_rows", TPU_ACC_ROWS_MIN, TPU_ACC_ROWS_MAX },
	[OPT_FIFO] = { "fifo_tiles", TPU_FIFO_TILES_MIN, TPU_FIFO_TILES_MAX },
	[OPT_QUEUES] = { "queues", TPU_NUM_QUEUES_MIN, TPU_NUM_QUEUES_MAX },
	[OPT_WINDOWS] = { "windows", TPU_NUM_WINDOWS_MIN, TPU_NUM_WINDOWS_MAX },
	[OPT_MQE] = { "max_queue_entries", TPU_MAX_QUEUE_ENTRIES_MIN, TPU_MAX_QUEUE_ENTRIES_MAX },
	[OPT_QDEPTH] = { "qdepth", TPU_MAX_QUEUE_ENTRIES_MIN, TPU_MAX_QUEUE_ENTRIES_MAX },
	[OPT_MEM] = { "mem", TPU_MEM_MIN, TPU_MEM_MAX },
};

/* Decimal or 0x-hex, with an optional k/M/G (binary) suffix when allow_suffix. */
static int parse_u64(const char *s, size_t len, bool allow_suffix, uint64_t *out)
{
	uint64_t v = 0, base = 10, mul = 1;
	size_t i = 0;

	if (allow_suffix && len > 0) {
		switch (s[len - 1]) {
		case 'k': case 'K': mul = 1ull << 10; len--; break;
		case 'm': case 'M': mul = 1ull << 20; len--; break;
		case 'g': case 'G': mul = 1ull << 30; len--; break;
		default: break;
		}
	}
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return -EINVAL;
	for (; i < len; i++) {
		unsigned d;
		char c = s[i];
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (v > UINT64_MAX / mul)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

static void set_opt(struct tpu_uri *u, int which, uint64_t v)
{
	switch (which) {
	case OPT_N: u->bopts.array_n = (uint32_t)v; break;
	case OPT_UB: u->bopts.ub_rows = (uint32_t)v; break;
	case OPT_ACC: u->bopts.acc_rows = (uint32_t)v; break;
	case OPT_FIFO: u->bopts.fifo_tiles = (uint32_t)v; break;
	case OPT_QUEUES: u->bopts.num_queues = (uint32_t)v; break;
	case OPT_WINDOWS: u->bopts.num_windows = (uint32_t)v; break;
	case OPT_MQE: u->bopts.max_queue_entries = (uint32_t)v; break;
	case OPT_QDEPTH: u->qdepth = (uint32_t)v; u->qdepth_set = true; break;
	case OPT_MEM: u->mem = v; break;
	default: break;
	}
}

static int add_extra(struct tpu_uri *u, const char *s, size_t len, char *msg, size_t msglen)
{
	size_t used = strlen(u->extra);
	if (used + len + 2 > sizeof(u->extra)) {
		snprintf(msg, msglen, "backend options too long (at most %zu bytes)",
			 sizeof(u->extra) - 1);
		return -EINVAL;
	}
	if (used)
		u->extra[used++] = ',';
	memcpy(u->extra + used, s, len);
	u->extra[used + len] = '\0';
	return 0;
}

/* One "key=value" item of length len. */
static int parse_item(struct tpu_uri *u, const char *s, size_t len, unsigned *seen, char *msg,
		      size_t msglen)
{
	const char *eq = memchr(s, '=', len);
	size_t klen = eq ? (size_t)(eq - s) : len;

	if (len == 0) {
		snprintf(msg, msglen, "empty option in device URI");
		return -EINVAL;
	}
	if (!eq || klen == 0) {
		snprintf(msg, msglen, "option '%.*s': expected key=value", (int)len, s);
		return -EINVAL;
	}
	for (int i = 0; i < OPT_COUNT; i++) {
		uint64_t v;
		if (strlen(opts[i].key) != klen || memcmp(opts[i].key, s, klen) != 0)
			continue;
		if (*seen & (1u << i)) {
			snprintf(msg, msglen, "option '%s' given twice", opts[i].key);
			return -EINVAL;
		}
		*seen |= 1u << i;
		if (parse_u64(eq + 1, len - klen - 1, i == OPT_MEM, &v) != 0) {
			snprintf(msg, msglen, "option '%s': '%.*s' is not a number%s", opts[i].key,
				 (int)(len - klen - 1), eq + 1,
				 i == OPT_MEM ? " (k/M/G suffix allowed)" : "");
			return -EINVAL;
		}
		if (v < opts[i].min || v > opts[i].max) {
			snprintf(msg, msglen,
				 "option '%s': %llu is out of range %llu..%llu", opts[i].key,
				 (unsigned long long)v, (unsigned long long)opts[i].min,
				 (unsigned long long)opts[i].max);
			return -EINVAL;
		}
		set_opt(u, i, v);
		return 0;
	}
	return add_extra(u, s, len, msg, msglen);
}

int tpu_uri_parse(const char *uri, struct tpu_uri *out, char *msg, size_t msglen)
{
	const char *colon, *p;
	size_t nlen;
	unsigned seen = 0;
	bool path = false;

	memset(out, 0, sizeof(*out));
	out->qdepth = TPU_QDEPTH_DEFAULT;
	out->mem = TPU_MEM_DEFAULT;
	if (!uri) {
		snprintf(msg, msglen, "device URI is NULL");
		return -EINVAL;
	}
	colon = strchr(uri, ':');
	nlen = colon ? (size_t)(colon - uri) : strlen(uri);
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		if (strlen(backends[i].name) != nlen || memcmp(backends[i].name, uri, nlen) != 0)
			continue;
		if (!backends[i].ops) {
			snprintf(msg, msglen, "backend '%s' is not built into this library",
				 backends[i].name);
			return -ENOENT;
		}
		if (backends[i].ops->available &&
		    !backends[i].ops->available(msg, msglen))
			return -ENOENT;
		out->ops = backends[i].ops;
		path = backends[i].path;
	}
	if (!out->ops) {
		snprintf(msg, msglen, "unknown backend '%.*s' (known: golden, sim, uart, uart-sim)", (int)nlen,
			 uri);
		return -ENOENT;
	}
	if (path && (!colon || colon[1] == '\0' || colon[1] == ',')) {
		snprintf(msg, msglen, "backend '%s' needs a device path: %s:PATH[@BAUD][,key=value...]",
			 out->ops->name, out->ops->name);
		return -EINVAL;
	}
	if (!colon || colon[1] == '\0')
		return 0;
	p = colon + 1;
	if (path) {
		/* The path (no commas in it) travels to the backend as "path=PATH[@BAUD]". */
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char item[300];
		int n = snprintf(item, sizeof(item), "path=%.*s", (int)len, p);
		int err;

		if (n < 0 || (size_t)n >= sizeof(item)) {
			snprintf(msg, msglen, "device path too long (at most %zu bytes)",
				 sizeof(item) - 6);
			return -EINVAL;
		}
		err = add_extra(out, item, (size_t)n, msg, msglen);
		if (err)
			return err;
		if (!comma) {
			out->bopts.extra = out->extra;
			return 0;
		}
		p = comma + 1;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int err = parse_item(out, p, len, &seen, msg, msglen);
		if (err)
			return err;
		if (!comma)
			break;
		p = comma + 1;
	}
	out->bopts.extra = out->extra[0] ? out->extra : NULL;
	return 0;
}
