/* Opening the device for a subcommand, with the one-line error every command prints. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "sim_model.h"
#include "tpu/tpu.h"

const char *cli_default_device(void)
{
	/* The RTL is the product; the golden model stands in when no Verilated model is built. */
	return tpu_sim_models(NULL, 0) ? "sim" : "golden";
}

/* uri with trace=FILE appended, for --trace; only sim devices can trace. 0 or CLI_EXIT_USAGE. */
static int add_trace(const struct cli_ctx *ctx, const char *uri, char *buf, size_t len)
{
	size_t blen = strcspn(uri, ":");
	int n;

	if (blen != 3 || strncmp(uri, "sim", 3) != 0) {
		cli_error(ctx, "--trace needs a sim device (the device is '%s')", uri);
		return CLI_EXIT_USAGE;
	}
	n = snprintf(buf, len, "%s%strace=%s", uri,
		     uri[blen] == '\0' ? ":" : uri[blen + 1] == '\0' ? "" : ",", ctx->trace);
	if (n < 0 || (size_t)n >= len) {
		cli_error(ctx, "--trace: file name too long");
		return CLI_EXIT_USAGE;
	}
	return 0;
}

int cli_open(const struct cli_ctx *ctx, const char *uri, tpu_dev **dev, struct tpu_info *info)
{
	char traced[1024];
	int rc;

	if (ctx->trace) {
		rc = add_trace(ctx, uri, traced, sizeof(traced));
		if (rc) {
			*dev = NULL;
			return -22; /* -EINVAL: the caller prints nothing more */
		}
		uri = traced;
	}
	rc = tpu_open(uri, dev);
	if (rc) {
		const char *why = tpu_last_open_error();
		cli_error(ctx, "device '%s': %s", uri, why && *why ? why : tpu_strerror(rc));
		return rc;
	}
	if (!info)
		return 0;
	rc = tpu_get_info(*dev, info);
	if (rc) {
		cli_error(ctx, "device '%s': cannot read its identity: %s", uri, tpu_strerror(rc));
		tpu_close(*dev);
		*dev = NULL;
	}
	return rc;
}
