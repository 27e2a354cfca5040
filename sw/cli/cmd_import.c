/* `tpu import`: a quantized ONNX model to a model file (docs/import.md). Nothing is written
 * unless the whole model imports and validates; the file is replaced atomically
 * (tpu_model_save). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "tpu/import.h"
#include "tpu/model.h"

static void help(void)
{
	printf("usage: tpu import MODEL.onnx -o MODEL.tpum [--name NAME]\n"
	       "\n"
	       "Import a quantized ONNX model (docs/import.md) into a model file for `tpu run`:\n"
	       "QOperator form (QuantizeLinear of a float input or an int8/uint8 input,\n"
	       "QLinearConv, QLinearMatMul, QGemm, MaxPool, QLinearAveragePool,\n"
	       "QLinearGlobalAveragePool, Flatten/Reshape, a trailing DequantizeLinear) or QDQ\n"
	       "form (DequantizeLinear -> Conv/MatMul/Gemm -> [Relu/Clip] -> QuantizeLinear;\n"
	       "AveragePool/GlobalAveragePool between DequantizeLinear and QuantizeLinear).\n"
	       "Every layer requantizes as ONNX Runtime does\n"
	       "(rounding mode FLOAT), so `tpu run` gives its outputs element for element.\n"
	       "Inputs and outputs are NHWC (the ONNX NCHW tensors transposed).\n"
	       "\n"
	       "Options:\n"
	       "  -o, --output FILE  the model file to write (replaced only on success)\n"
	       "  --name NAME        the model's name (default: the graph's name)\n"
	       "  -h, --help         this help\n"
	       "\n"
	       "Exit status: 0 success, 1 the output cannot be written, 2 bad arguments or a\n"
	       "model that cannot be imported (the message names the node, its operator and\n"
	       "the attribute).\n");
}

enum { OPT_OUT = 1, OPT_NAME, OPT_HELP };

static const struct cli_opt opts[] = {
    {"output", 'o', true, OPT_OUT},
    {"name", 0, true, OPT_NAME},
    {"help", 'h', false, OPT_HELP},
    {NULL, 0, false, 0},
};

int cmd_import(const struct cli_ctx *ctx, int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *name = NULL, *val;
	struct cli_scan sc;
	int id;
	cli_scan_init(&sc, argc, argv, 1);
	while ((id = cli_next(&sc, ctx, opts, &val)) != CLI_OPT_END) {
		switch (id) {
		case CLI_OPT_ERROR:
			return CLI_EXIT_USAGE;
		case CLI_OPT_POSITIONAL:
			if (in) {
				cli_error(ctx, "unexpected argument '%s': give one MODEL.onnx",
					  val);
				return CLI_EXIT_USAGE;
			}
			in = val;
			break;
		case OPT_OUT:
			out = val;
			break;
		case OPT_NAME:
			name = val;
			break;
		case OPT_HELP:
			help();
			return CLI_EXIT_OK;
		}
	}
	if (!in || !out) {
		cli_error(ctx, "missing %s: usage tpu import MODEL.onnx -o MODEL.tpum",
			  in ? "-o MODEL.tpum" : "MODEL.onnx");
		return CLI_EXIT_USAGE;
	}
	struct tpu_model *m;
	char err[512];
	int rc = tpu_import_onnx(in, name, &m, err, sizeof(err));
	if (rc) {
		cli_error(ctx, "%s", err);
		return rc == -ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
	}
	rc = tpu_model_save(m, out, err, sizeof(err));
	if (rc)
		cli_error(ctx, "%s", err);
	else {
		/* zero points as the user's types have them (uint8: the int8 form + 128) */
		const struct tpu_quant *q = &m->layers[m->n_layers - 1].out;
		bool iu = m->in_type == TPU_IO_UINT8, ou = m->out_type == TPU_IO_UINT8;
		printf("%s: model '%s', %u layers, input %u x %u x %u %s (scale %.9g, zero point "
		       "%d), %u outputs %s (scale %.9g, zero point %d)\n",
		       out, m->name, m->n_layers, m->in_h, m->in_w, m->in_c, iu ? "uint8" : "int8",
		       (double)m->in.scale, (int)m->in.zero_point + (iu ? 128 : 0), m->num_classes,
		       ou ? "uint8" : "int8", (double)q->scale,
		       (int)q->zero_point + (ou ? 128 : 0));
	}
	tpu_model_free(m);
	return rc ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
