/* Helpers of the training op tests (train_fixture.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "train_fixture.h"

int train_devices(char uris[TRAIN_MAX_DEVS][128])
{
	const char *env = getenv("TPU_TRAIN_DEVICES");
	char buf[512];
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", env && *env ? env : "golden:bf16=1 golden:n=4,bf16=1");
	for (char *t = strtok(buf, " "); t && n < TRAIN_MAX_DEVS; t = strtok(NULL, " "))
		snprintf(uris[n++], 128, "%s", t);
	return n;
}

void train_open(const char *uri, tpu_dev **dev, struct tpu_train_ctx *ctx)
{
	ck_assert_msg(tpu_open(uri, dev) == 0, "open %s: %s", uri, tpu_last_open_error());
	ck_assert_int_eq(tpu_train_init(ctx, *dev), 0);
}

void train_close(tpu_dev *dev, struct tpu_train_ctx *ctx)
{
	tpu_train_free(ctx);
	tpu_close(dev);
}

void train_fill(float *f, double *d, size_t n, uint64_t *st)
{
	for (size_t i = 0; i < n; i++) {
		f[i] = (float)harness_range(st, -1000000, 1000000) / 1e6f;
		d[i] = f[i];
	}
}

void *train_zalloc(size_t n)
{
	void *p = calloc(n ? n : 1, 8);

	ck_assert_ptr_nonnull(p);
	return p;
}

double train_bound(double mag, size_t k)
{
	return (ldexp(1, -7) + ldexp(1, -16) + (double)(k + 1) * ldexp(1, -24)) * mag + 1e-30;
}
