/* Option scanning, number parsing and error output for the CLI; see cli.h. A small scanner of
 * our own instead of getopt_long: no global state, and every error is our one-line format. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_error(const struct cli_ctx *ctx, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* one line, whatever the message carries (a file name with a newline, say) */
	for (char *p = msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	fprintf(stderr, "%s: %s\n", ctx && ctx->name ? ctx->name : "tpu", msg);
}

void cli_scan_init(struct cli_scan *sc, int argc, char **argv, int first)
{
	sc->argc = argc;
	sc->argv = argv;
	sc->idx = first;
	sc->only_pos = false;
}

static const struct cli_opt *find_long(const struct cli_opt *opts, const char *name, size_t len)
{
	for (; opts->name || opts->short_name; opts++)
		if (opts->name && strlen(opts->name) == len && !strncmp(opts->name, name, len))
			return opts;
	return NULL;
}

static const struct cli_opt *find_short(const struct cli_opt *opts, char c)
{
	for (; opts->name || opts->short_name; opts++)
		if (opts->short_name == c)
			return opts;
	return NULL;
}

static int take_value(struct cli_scan *sc, const struct cli_ctx *ctx, const char *shown,
		      const char **val)
{
	if (sc->idx >= sc->argc) {
		cli_error(ctx, "option '%s' needs a value (see %s --help)", shown, ctx->name);
		return CLI_OPT_ERROR;
	}
	*val = sc->argv[sc->idx++];
	return 0;
}

int cli_next(struct cli_scan *sc, const struct cli_ctx *ctx, const struct cli_opt *opts,
	     const char **val)
{
	*val = NULL;
	if (sc->idx >= sc->argc)
		return CLI_OPT_END;
	const char *arg = sc->argv[sc->idx++];
	if (sc->only_pos || arg[0] != '-' || arg[1] == '\0') {
		*val = arg;
		return CLI_OPT_POSITIONAL;
	}
	if (!strcmp(arg, "--")) {
		sc->only_pos = true;
		return cli_next(sc, ctx, opts, val);
	}
	const struct cli_opt *o;
	if (arg[1] == '-') {
		const char *name = arg + 2;
		const char *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		o = find_long(opts, name, len);
		if (!o) {
			cli_error(ctx, "unknown option '%.*s' (see %s --help)", (int)(len + 2), arg,
				  ctx->name);
			return CLI_OPT_ERROR;
		}
		if (!o->has_arg) {
			if (eq) {
				cli_error(ctx, "option '--%s' takes no value", o->name);
				return CLI_OPT_ERROR;
			}
			return o->id;
		}
		if (eq) {
			*val = eq + 1;
			return o->id;
		}
		return take_value(sc, ctx, arg, val) ? CLI_OPT_ERROR : o->id;
	}
	o = find_short(opts, arg[1]);
	if (!o) {
		cli_error(ctx, "unknown option '-%c' (see %s --help)", arg[1], ctx->name);
		return CLI_OPT_ERROR;
	}
	if (!o->has_arg) {
		if (arg[2]) {
			cli_error(ctx, "option '-%c' takes no value", arg[1]);
			return CLI_OPT_ERROR;
		}
		return o->id;
	}
	if (arg[2]) {
		*val = arg + 2;
		return o->id;
	}
	return take_value(sc, ctx, arg, val) ? CLI_OPT_ERROR : o->id;
}

int cli_pair_add(const struct cli_ctx *ctx, struct cli_pair *p, const char *val)
{
	if (p->n == 2) {
		cli_error(ctx, "unexpected argument '%s': give exactly %s and %s", val, p->names[0],
			  p->names[1]);
		return CLI_EXIT_USAGE;
	}
	p->val[p->n++] = val;
	return 0;
}

int cli_pair_done(const struct cli_ctx *ctx, const struct cli_pair *p, const char *usage)
{
	if (p->n == 2)
		return 0;
	if (p->n == 1)
		cli_error(ctx, "missing %s: usage %s", p->names[1], usage);
	else
		cli_error(ctx, "missing %s and %s: usage %s", p->names[0], p->names[1], usage);
	return CLI_EXIT_USAGE;
}

int cli_parse_long(const char *s, long lo, long hi, long *out)
{
	if (!s || !*s)
		return -EINVAL;
	char *end;
	const char *digits = s[0] == '-' || s[0] == '+' ? s + 1 : s;
	/* a digit right after the sign: strtol would skip any white space (" 5", "\n5", "-\t5") */
	if (*digits < '0' || *digits > '9')
		return -EINVAL;
	/* decimal, or 0x hex; never octal ("010" is ten) */
	int base = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : 10;
	errno = 0;
	long v = strtol(s, &end, base);
	if (end == s || *end)
		return -EINVAL;
	if (errno == ERANGE || v < lo || v > hi)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_parse_u64(const char *s, unsigned long long *out)
{
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	char *end;
	int base = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (*end || end == s)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_parse_double(const char *s, double *out)
{
	const char *p = s && (s[0] == '-' || s[0] == '+') ? s + 1 : s;
	/* a digit or '.' first: strtod skips white space and reads "inf", "nan" and hex floats */
	if (!p || !((*p >= '0' && *p <= '9') || *p == '.'))
		return -EINVAL;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return -EINVAL;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end)
		return -EINVAL;
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_open_exit(int err)
{
	/* what the user wrote: a malformed URI or option value, a path that does not exist */
	switch (-err) {
	case EINVAL:
	case ENOENT:
	case ENOTDIR:
	case ENOTTY:
	case ENAMETOOLONG:
	case EISDIR:
		return CLI_EXIT_USAGE;
	default:
		return CLI_EXIT_FAIL;
	}
}
