/* The error reporting of sw/train: one message into the caller's buffer; see train.h. */
#include <stdarg.h>
#include <stdio.h>

#include "train.h"

int tr_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}
