/* The backends' extra device-URI options ("key=value,key=value", what uri.c hands on as
 * tpu_backend_opts.extra): splitting them into items and reading decimal values. Shared by
 * backend_sim.c and backend_uart.c. */
#ifndef TPU_DRIVER_BACKEND_OPTS_H
#define TPU_DRIVER_BACKEND_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One item of an option list: item[0..len) is "key=value" (or just "key" when !has_value). */
struct tpu_opt_item {
	const char *item;
	size_t len;
	const char *key;
	size_t klen;
	const char *value;
	size_t vlen;
	bool has_value;
};

/* Split the next comma-separated item off *p into *it and advance *p past it. Returns false
 * when *p is NULL or empty (no items left). */
bool tpu_opt_next(const char **p, struct tpu_opt_item *it);

/* Whether the item's key is key. */
bool tpu_opt_key_is(const struct tpu_opt_item *it, const char *key);

/* Parse s[0..len) as a plain decimal number (digits only, no sign) in 0..max into *out.
 * Returns 0 or -EINVAL (empty, not a number, above max). */
int tpu_opt_parse_dec(const char *s, size_t len, uint64_t max, uint64_t *out);

#endif /* TPU_DRIVER_BACKEND_OPTS_H */
