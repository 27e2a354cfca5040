/* Extra device-URI options of the backends; see backend_opts.h. */
#include <errno.h>
#include <string.h>

#include "backend_opts.h"

bool tpu_opt_next(const char **p, struct tpu_opt_item *it)
{
	const char *s = *p, *comma, *eq;

	if (!s || !*s)
		return false;
	comma = strchr(s, ',');
	it->item = s;
	it->len = comma ? (size_t)(comma - s) : strlen(s);
	eq = memchr(s, '=', it->len);
	it->has_value = eq != NULL;
	it->key = s;
	it->klen = eq ? (size_t)(eq - s) : it->len;
	it->value = eq ? eq + 1 : s + it->len;
	it->vlen = eq ? it->len - it->klen - 1 : 0;
	*p = comma ? comma + 1 : NULL;
	return true;
}

bool tpu_opt_key_is(const struct tpu_opt_item *it, const char *key)
{
	return it->klen == strlen(key) && !memcmp(it->key, key, it->klen);
}

int tpu_opt_parse_dec(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		uint64_t d;
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		d = (uint64_t)(s[i] - '0');
		if (d > max || v > (max - d) / 10u)
			return -EINVAL;
		v = v * 10u + d;
	}
	*out = v;
	return 0;
}
