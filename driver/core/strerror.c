/* Names for every code the library returns: 0, -errno and positive device statuses. */
#include <errno.h>

#include "internal.h"

static const char *errno_text(int e)
{
	switch (e) {
	case EINVAL: return "invalid argument";
	case ENOENT: return "unknown backend";
	case ENODEV: return "device not present (registers read all-ones)";
	case ENOMEM: return "out of memory or host DMA arena full";
	case EBUSY: return "busy: an outstanding command still uses it";
	case EAGAIN: return "queue full: not enough free submission slots or command ids";
	case EIO: return "controller fatal or queue broken: reset the device";
	case ETIMEDOUT: return "timed out";
	case ERANGE: return "out of range: the span does not fit the buffer or a 32-bit field";
	case EFAULT: return "bad address";
	case ENOTSUP: return "not supported by this device";
	default: return "unknown error";
	}
}

static const char *status_text(int st)
{
	if (TPU_STATUS_SCT(st) != 0 || (unsigned)st > 0x7FFu)
		return "unknown device status";
	switch (TPU_STATUS_SC(st)) {
#define X(name, value, dnr, text) case value: return "device: " text;
		TPU_STATUS_LIST(X)
#undef X
	default: return "unknown device status";
	}
}

const char *tpu_strerror(int code)
{
	if (code == 0)
		return "success";
	if (code < 0)
		return code == -2147483647 - 1 ? "unknown error" : errno_text(-code);
	return status_text(code);
}
