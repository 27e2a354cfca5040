/* The ops library's per-device error message (tpu_ops_last_error). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "ops_priv.h"

const char *tpu_ops_last_error(tpu_dev *dev)
{
	return dev ? dev->ops_err : "dev: NULL";
}

int tpu_ops_reject(tpu_dev *dev, const char *fmt, ...)
{
	va_list ap;

	if (!dev)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(dev->ops_err, sizeof(dev->ops_err), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void tpu_ops_clear_error(tpu_dev *dev)
{
	if (dev)
		dev->ops_err[0] = '\0';
}

void tpu_ops_take_gemm_error(tpu_dev *dev)
{
	/* both buffers are the same size: the message is copied whole */
	if (dev && dev->gemm_err[0])
		snprintf(dev->ops_err, sizeof(dev->ops_err), "%s", dev->gemm_err);
}
