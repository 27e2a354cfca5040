/* `tpu import`: a quantized ONNX or TFLite model to a model file (docs/import.md); the format is
 * told by the file's content (TFLite's "TFL3" identifier) or its .tflite name. Nothing is written
 * unless the whole model imports and validates; the file is replaced atomically
 * (tpu_model_save). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tpu/import.h"
#include "tpu/model.h"

static void help(void)
{
	printf("usage: tpu import MODEL.onnx|MODEL.tflite -o MODEL.tpum [--name NAME]\n"
	       "                  [--kernels reference|xnnpack]\n"
	       "\n"
	       "Import a quantized ONNX or TFLite model (docs/import.md) into a model file for\n"
	       "`tpu run`, which then gives the outputs of the runtime it came from, element for\n"
	       "element.\n"
	       "\n"
	       "ONNX: QOperator form (QuantizeLinear of a float input or an int8/uint8 input,\n"
	       "QLinearConv, QLinearMatMul, QGemm, MaxPool, QLinearAveragePool,\n"
	       "QLinearGlobalAveragePool, Flatten/Reshape, a trailing DequantizeLinear) or QDQ\n"
	       "form (DequantizeLinear -> Conv/MatMul/Gemm -> [Relu/Clip] -> QuantizeLinear;\n"
	       "AveragePool/GlobalAveragePool between DequantizeLinear and QuantizeLinear);\n"
	       "every layer requantizes as ONNX Runtime does (rounding mode FLOAT).\n"
	       "MatMulInteger or ConvInteger, optionally with an Add of an int32 constant,\n"
	       "as the graph's int32 output (`tpu run --outputs` writes int32); and the\n"
	       "integer form that `tpu export` writes for DOUBLE and SINGLE layers. The model\n"
	       "records which of its input and output are NCHW (4-D in the graph): `tpu run`\n"
	       "takes and writes those as ONNX has them and reorders for the device (NHWC).\n"
	       "\n"
	       "TFLite: int8 (or uint8) QUANTIZE of a float input, CONV_2D, DEPTHWISE_CONV_2D,\n"
	       "FULLY_CONNECTED, MAX_POOL_2D, AVERAGE_POOL_2D, RESHAPE, fused\n"
	       "NONE/RELU/RELU6/RELU_N1_TO_1, per-tensor or per-channel weights, a trailing\n"
	       "DEQUANTIZE; the rounding reproduces the LiteRT kernels --kernels names.\n"
	       "\n"
	       "Options:\n"
	       "  -o, --output FILE  the model file to write (replaced only on success)\n"
	       "  --name NAME        the model's name (default: the graph's or subgraph's name)\n"
	       "  --kernels SET      TFLite only: the LiteRT kernels to reproduce: reference\n"
	       "                     (default; the BUILTIN_REF op resolver) or xnnpack (the\n"
	       "                     default interpreter: built-in kernels with XNNPACK)\n"
	       "  -h, --help         this help\n"
	       "\n"
	       "Exit status: 0 success, 1 the output cannot be written, 2 bad arguments or a\n"
	       "model that cannot be imported (the message names the node or operator, its\n"
	       "type and the attribute, option or field).\n");
}

/* TFLite when the file says so ("TFL3" at byte 4) or, failing that, its name ends .tflite. */
static bool is_tflite(const char *path)
{
	char id[8] = {0};
	FILE *f = fopen(path, "rb");
	if (f) {
		size_t n = fread(id, 1, sizeof(id), f);
		fclose(f);
		if (n == sizeof(id) && !memcmp(id + 4, "TFL3", 4))
			return true;
	}
	size_t len = strlen(path);
	return len >= 7 && !strcmp(path + len - 7, ".tflite");
}

enum { OPT_OUT = 1, OPT_NAME, OPT_KERNELS, OPT_HELP };

static const struct cli_opt opts[] = {
    {"output", 'o', true, OPT_OUT}, {"name", 0, true, OPT_NAME}, {"kernels", 0, true, OPT_KERNELS},
    {"help", 'h', false, OPT_HELP}, {NULL, 0, false, 0},
};

int cmd_import(const struct cli_ctx *ctx, int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *name = NULL, *kernels = NULL, *val;
	struct cli_scan sc;
	int id;
	cli_scan_init(&sc, argc, argv, 1);
	while ((id = cli_next(&sc, ctx, opts, &val)) != CLI_OPT_END) {
		switch (id) {
		case CLI_OPT_ERROR:
			return CLI_EXIT_USAGE;
		case CLI_OPT_POSITIONAL:
			if (in) {
				cli_error(ctx, "unexpected argument '%s': give one model file",
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
		case OPT_KERNELS:
			if (strcmp(val, "reference") && strcmp(val, "xnnpack")) {
				cli_error(ctx, "--kernels %s: reference or xnnpack expected", val);
				return CLI_EXIT_USAGE;
			}
			kernels = val;
			break;
		case OPT_HELP:
			help();
			return CLI_EXIT_OK;
		}
	}
	if (!in || !out) {
		cli_error(ctx, "missing %s: usage tpu import MODEL.onnx|MODEL.tflite -o MODEL.tpum",
			  in ? "-o MODEL.tpum" : "MODEL.onnx|MODEL.tflite");
		return CLI_EXIT_USAGE;
	}
	struct tpu_model *m;
	char err[512];
	bool tfl = is_tflite(in);
	if (kernels && !tfl) {
		cli_error(ctx, "--kernels: %s is not a TFLite model (the option is TFLite's)", in);
		return CLI_EXIT_USAGE;
	}
	int rc =
	    tfl ? tpu_import_tflite(in, name,
				    kernels && !strcmp(kernels, "xnnpack") ? TPU_TFLITE_XNNPACK
									   : TPU_TFLITE_REFERENCE,
				    &m, err, sizeof(err))
		: tpu_import_onnx(in, name, &m, err, sizeof(err));
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
		printf("%s: model '%s', %u layers, input %u x %u x %u (H x W x C)%s %s (scale "
		       "%.9g, zero point %d), %u outputs%s ",
		       out, m->name, m->n_layers, m->in_h, m->in_w, m->in_c,
		       (m->io_layout & TPU_LAYOUT_IN_NCHW) ? " NCHW" : "", iu ? "uint8" : "int8",
		       (double)m->in.scale, (int)m->in.zero_point + (iu ? 128 : 0), m->num_classes,
		       (m->io_layout & TPU_LAYOUT_OUT_NCHW) ? " NCHW" : "");
		if (m->out_type == TPU_IO_INT32)
			printf("int32 (not requantized)\n");
		else
			printf("%s (scale %.9g, zero point %d)\n", ou ? "uint8" : "int8",
			       (double)q->scale, (int)q->zero_point + (ou ? 128 : 0));
	}
	tpu_model_free(m);
	return rc ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
