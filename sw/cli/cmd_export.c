/* `tpu export`: a model file as an ONNX model (docs/import.md "Export"), written only when the
 * whole export succeeds (tpu/outfile.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "model_input.h"
#include "tpu/import.h"
#include "tpu/model.h"

static void help(void)
{
	printf("usage: tpu export MODEL.tpum -o MODEL.onnx\n"
	       "\n"
	       "Write a model file as a quantized ONNX model that ONNX Runtime runs with the\n"
	       "model's own arithmetic, bit for bit (docs/import.md \"Export\"): an int8 NCHW\n"
	       "input; layers rounded FLOAT (ONNX Runtime's) as QLinearConv or QGemm\n"
	       "(com.microsoft), layers rounded DOUBLE or SINGLE (TFLite's) as ConvInteger or\n"
	       "MatMulInteger and the requantization in int64 operators (the float scales in\n"
	       "metadata_props \"tpu.scales\"); MaxPool, Flatten; the last layer's int8\n"
	       "output. `tpu import` of the export gives the same model back.\n"
	       "\n"
	       "Options:\n"
	       "  -o, --output FILE  the ONNX file to write (replaced only on success)\n"
	       "  -h, --help         this help\n"
	       "\n"
	       "Exit status: 0 success, 1 the output cannot be written, 2 bad arguments, a model\n"
	       "that cannot be loaded, or a layer ONNX cannot express (the message names it).\n");
}

enum { OPT_OUT = 1, OPT_HELP };

static const struct cli_opt opts[] = {
    {"output", 'o', true, OPT_OUT},
    {"help", 'h', false, OPT_HELP},
    {NULL, 0, false, 0},
};

int cmd_export(const struct cli_ctx *ctx, int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *val;
	struct cli_scan sc;
	int id;
	cli_scan_init(&sc, argc, argv, 1);
	while ((id = cli_next(&sc, ctx, opts, &val)) != CLI_OPT_END) {
		switch (id) {
		case CLI_OPT_ERROR:
			return CLI_EXIT_USAGE;
		case CLI_OPT_POSITIONAL:
			if (in) {
				cli_error(ctx, "unexpected argument '%s': give one MODEL.tpum",
					  val);
				return CLI_EXIT_USAGE;
			}
			in = val;
			break;
		case OPT_OUT:
			out = val;
			break;
		case OPT_HELP:
			help();
			return CLI_EXIT_OK;
		}
	}
	if (!in || !out) {
		cli_error(ctx, "missing %s: usage tpu export MODEL.tpum -o MODEL.onnx",
			  in ? "-o MODEL.onnx" : "MODEL.tpum");
		return CLI_EXIT_USAGE;
	}
	struct tpu_model *m;
	char err[512];
	if (cli_model_load(ctx, in, &m))
		return CLI_EXIT_USAGE;
	int rc = tpu_export_onnx(m, out, err, sizeof(err));
	if (rc)
		cli_error(ctx, "%s", err);
	else
		printf("%s: model '%s', %u layers, int8 input 1 x %u x %u x %u (NCHW), %u outputs\n",
		       out, m->name, m->n_layers, m->in_c, m->in_h, m->in_w, m->num_classes);
	tpu_model_free(m);
	return rc == 0 ? CLI_EXIT_OK : rc == -EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
}
