/* Opening the device for a subcommand, with the one-line error every command prints. */
#include "cli.h"
#include "tpu/tpu.h"

int cli_open(const struct cli_ctx *ctx, const char *uri, tpu_dev **dev, struct tpu_info *info)
{
	int rc = tpu_open(uri, dev);
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
