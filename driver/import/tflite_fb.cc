// The thin C++ shim over flatbuffers (tflite_fb.h): verify a TFLite model with the Verifier of
// the reader that flatc generates from tflite_schema.fbs, then copy what the importer reads into
// plain C structs. No field is read before the whole buffer has verified; no exception is used
// (allocation through malloc); everything else of the import is C.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "import_util.h"
#include "tflite_fb.h"
#include "tflite_schema_generated.h"

namespace
{

// the constants of tflite_fb.h are the schema's
static_assert(TFL_FLOAT32 == static_cast<int>(tflite::TensorType_FLOAT32) &&
		  TFL_INT32 == static_cast<int>(tflite::TensorType_INT32) &&
		  TFL_UINT8 == static_cast<int>(tflite::TensorType_UINT8) &&
		  TFL_INT64 == static_cast<int>(tflite::TensorType_INT64) &&
		  TFL_INT8 == static_cast<int>(tflite::TensorType_INT8),
	      "TensorType");
static_assert(TFL_OP_AVERAGE_POOL_2D == static_cast<int>(tflite::BuiltinOperator_AVERAGE_POOL_2D) &&
		  TFL_OP_CONV_2D == static_cast<int>(tflite::BuiltinOperator_CONV_2D) &&
		  TFL_OP_DEPTHWISE_CONV_2D ==
		      static_cast<int>(tflite::BuiltinOperator_DEPTHWISE_CONV_2D) &&
		  TFL_OP_DEQUANTIZE == static_cast<int>(tflite::BuiltinOperator_DEQUANTIZE) &&
		  TFL_OP_FULLY_CONNECTED ==
		      static_cast<int>(tflite::BuiltinOperator_FULLY_CONNECTED) &&
		  TFL_OP_MAX_POOL_2D == static_cast<int>(tflite::BuiltinOperator_MAX_POOL_2D) &&
		  TFL_OP_RESHAPE == static_cast<int>(tflite::BuiltinOperator_RESHAPE) &&
		  TFL_OP_QUANTIZE == static_cast<int>(tflite::BuiltinOperator_QUANTIZE),
	      "BuiltinOperator");
static_assert(TFL_OPT_CONV2D == static_cast<int>(tflite::BuiltinOptions_Conv2DOptions) &&
		  TFL_OPT_DEPTHWISE_CONV2D ==
		      static_cast<int>(tflite::BuiltinOptions_DepthwiseConv2DOptions) &&
		  TFL_OPT_POOL2D == static_cast<int>(tflite::BuiltinOptions_Pool2DOptions) &&
		  TFL_OPT_FULLY_CONNECTED ==
		      static_cast<int>(tflite::BuiltinOptions_FullyConnectedOptions) &&
		  TFL_OPT_RESHAPE == static_cast<int>(tflite::BuiltinOptions_ReshapeOptions) &&
		  TFL_OPT_DEQUANTIZE ==
		      static_cast<int>(tflite::BuiltinOptions_DequantizeOptions) &&
		  TFL_OPT_QUANTIZE == static_cast<int>(tflite::BuiltinOptions_QuantizeOptions),
	      "BuiltinOptions");
static_assert(TFL_PAD_SAME == static_cast<int>(tflite::Padding_SAME) &&
		  TFL_PAD_VALID == static_cast<int>(tflite::Padding_VALID),
	      "Padding");
static_assert(TFL_ACT_NONE == static_cast<int>(tflite::ActivationFunctionType_NONE) &&
		  TFL_ACT_RELU == static_cast<int>(tflite::ActivationFunctionType_RELU) &&
		  TFL_ACT_RELU_N1_TO_1 ==
		      static_cast<int>(tflite::ActivationFunctionType_RELU_N1_TO_1) &&
		  TFL_ACT_RELU6 == static_cast<int>(tflite::ActivationFunctionType_RELU6),
	      "ActivationFunctionType");

void copy_name(char *dst, size_t cap, const flatbuffers::String *s)
{
	dst[0] = '\0';
	if (!s)
		return;
	size_t n = s->size() < cap - 1 ? s->size() : cap - 1;
	memcpy(dst, s->data(), n);
	dst[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (dst[i] < 0x20 || dst[i] > 0x7e)
			dst[i] = '?';
}

// A vector's elements into a malloc'ed array (NULL and 0 for an absent or empty one).
template <typename T, typename U>
bool copy_vec(const flatbuffers::Vector<U> *v, uint32_t *n, T **out)
{
	*n = 0;
	*out = nullptr;
	if (!v || !v->size())
		return true;
	*out = static_cast<T *>(malloc(v->size() * sizeof(T)));
	if (!*out)
		return false;
	for (flatbuffers::uoffset_t i = 0; i < v->size(); i++)
		(*out)[i] = static_cast<T>(v->Get(i));
	*n = v->size();
	return true;
}

int copy_tensor(const tflite::Tensor *t, uint32_t index, struct tfl_tensor *c, char *err,
		size_t errlen)
{
	copy_name(c->name, sizeof(c->name), t->name());
	c->type = t->type();
	c->buffer = t->buffer();
	c->is_variable = t->is_variable();
	c->sparse = t->sparsity() != nullptr;
	c->external_buffer = t->external_buffer();
	if (const auto *s = t->shape()) {
		if (s->size() > TFL_MAX_RANK)
			return imp_fail(err, errlen, "tensor %u '%s': rank %u (at most %d)", index,
					c->name, s->size(), TFL_MAX_RANK);
		c->has_shape = true;
		c->rank = s->size();
		for (uint32_t i = 0; i < c->rank; i++)
			c->shape[i] = s->Get(i);
	}
	if (const auto *q = t->quantization()) {
		if (!copy_vec(q->scale(), &c->n_scale, &c->scale) ||
		    !copy_vec(q->zero_point(), &c->n_zero_point, &c->zero_point))
			return -ENOMEM;
		c->quantized_dimension = q->quantized_dimension();
		c->quant_details = q->details_type();
	}
	return 0;
}

void copy_options(const tflite::Operator *op, struct tfl_operator *c)
{
	struct tfl_options *o = &c->opt;
	c->options_type = op->builtin_options_type();
	if (const auto *p = op->builtin_options_as_Conv2DOptions()) {
		o->padding = p->padding();
		o->stride_w = p->stride_w();
		o->stride_h = p->stride_h();
		o->act = p->fused_activation_function();
		o->dilation_w = p->dilation_w_factor();
		o->dilation_h = p->dilation_h_factor();
		o->quantized_bias_type = p->quantized_bias_type();
	} else if (const auto *p = op->builtin_options_as_DepthwiseConv2DOptions()) {
		o->padding = p->padding();
		o->stride_w = p->stride_w();
		o->stride_h = p->stride_h();
		o->depth_multiplier = p->depth_multiplier();
		o->act = p->fused_activation_function();
		o->dilation_w = p->dilation_w_factor();
		o->dilation_h = p->dilation_h_factor();
	} else if (const auto *p = op->builtin_options_as_Pool2DOptions()) {
		o->padding = p->padding();
		o->stride_w = p->stride_w();
		o->stride_h = p->stride_h();
		o->filter_w = p->filter_width();
		o->filter_h = p->filter_height();
		o->act = p->fused_activation_function();
	} else if (const auto *p = op->builtin_options_as_FullyConnectedOptions()) {
		o->act = p->fused_activation_function();
		o->weights_format = p->weights_format();
		o->keep_num_dims = p->keep_num_dims();
		o->asymmetric_quantize_inputs = p->asymmetric_quantize_inputs();
		o->quantized_bias_type = p->quantized_bias_type();
		o->has_quant_spec = p->quant_spec() != nullptr;
	} else if (const auto *p = op->builtin_options_as_ReshapeOptions()) {
		if (const auto *s = p->new_shape()) {
			o->has_new_shape = true;
			o->n_new_shape = s->size();
			for (uint32_t i = 0; i < s->size() && i < TFL_MAX_RANK; i++)
				o->new_shape[i] = s->Get(i);
		}
	}
}

int copy_model(const tflite::Model *fm, struct tfl_model *m, char *err, size_t errlen)
{
	m->version = fm->version();
	const auto *sgs = fm->subgraphs();
	m->n_subgraphs = sgs ? sgs->size() : 0;
	if (!m->n_subgraphs)
		return imp_fail(err, errlen, "the model has no subgraph");
	if (const auto *codes = fm->operator_codes()) {
		m->opcodes =
		    static_cast<tfl_opcode *>(calloc(codes->size() + 1, sizeof(tfl_opcode)));
		if (!m->opcodes)
			return -ENOMEM;
		m->n_opcodes = codes->size();
		for (uint32_t i = 0; i < m->n_opcodes; i++) {
			const auto *oc = codes->Get(i);
			// LiteRT's GetBuiltinCode: the larger of the two fields (the old one is a
			// byte, 127 meaning "see builtin_code")
			int32_t a = oc->deprecated_builtin_code(), b = oc->builtin_code();
			m->opcodes[i].builtin = a > b ? a : b;
			m->opcodes[i].version = oc->version();
			m->opcodes[i].custom = oc->custom_code() != nullptr;
		}
	}
	if (const auto *bufs = fm->buffers()) {
		m->buffers =
		    static_cast<tfl_buffer *>(calloc(bufs->size() + 1, sizeof(tfl_buffer)));
		if (!m->buffers)
			return -ENOMEM;
		m->n_buffers = bufs->size();
		for (uint32_t i = 0; i < m->n_buffers; i++) {
			const auto *b = bufs->Get(i);
			struct tfl_buffer *c = &m->buffers[i];
			c->offset = b->offset();
			c->ext_size = b->size();
			const auto *d = b->data();
			if (d && d->size()) {
				if (!(c->data = static_cast<uint8_t *>(malloc(d->size()))))
					return -ENOMEM;
				memcpy(c->data, d->data(), d->size());
				c->size = d->size();
			}
		}
	}
	const auto *g = sgs->Get(0);
	copy_name(m->name, sizeof(m->name), g->name());
	if (!copy_vec(g->inputs(), &m->n_inputs, &m->inputs) ||
	    !copy_vec(g->outputs(), &m->n_outputs, &m->outputs))
		return -ENOMEM;
	if (const auto *ts = g->tensors()) {
		m->tensors = static_cast<tfl_tensor *>(calloc(ts->size() + 1, sizeof(tfl_tensor)));
		if (!m->tensors)
			return -ENOMEM;
		m->n_tensors = ts->size();
		for (uint32_t i = 0; i < m->n_tensors; i++) {
			int rc = copy_tensor(ts->Get(i), i, &m->tensors[i], err, errlen);
			if (rc)
				return rc;
		}
	}
	if (const auto *ops = g->operators()) {
		m->ops = static_cast<tfl_operator *>(calloc(ops->size() + 1, sizeof(tfl_operator)));
		if (!m->ops)
			return -ENOMEM;
		m->n_ops = ops->size();
		for (uint32_t i = 0; i < m->n_ops; i++) {
			const auto *op = ops->Get(i);
			struct tfl_operator *c = &m->ops[i];
			c->opcode_index = op->opcode_index();
			if (!copy_vec(op->inputs(), &c->n_inputs, &c->inputs) ||
			    !copy_vec(op->outputs(), &c->n_outputs, &c->outputs))
				return -ENOMEM;
			c->has_custom_options = op->custom_options() != nullptr;
			copy_options(op, c);
		}
	}
	return 0;
}

} // namespace

extern "C" int tfl_parse(const void *data, size_t len, struct tfl_model **out, char *err,
			 size_t errlen)
{
	*out = nullptr;
	if (len < 8 || len >= FLATBUFFERS_MAX_BUFFER_SIZE)
		return imp_fail(err, errlen, "not a TFLite model: %zu bytes (8 to %lu expected)",
				len, (unsigned long)FLATBUFFERS_MAX_BUFFER_SIZE - 1);
	if (!tflite::ModelBufferHasIdentifier(data))
		return imp_fail(err, errlen,
				"not a TFLite model: no \"%s\" file identifier at byte 4",
				tflite::ModelIdentifier());
	// the Verifier checks alignment relative to the buffer's start: give it an aligned one
	const uint8_t *buf = static_cast<const uint8_t *>(data);
	uint8_t *copy = nullptr;
	if (reinterpret_cast<uintptr_t>(buf) % 16) {
		if (!(copy = static_cast<uint8_t *>(aligned_alloc(16, (len + 15) / 16 * 16))))
			return imp_fail(err, errlen, "out of memory for %zu bytes", len), -ENOMEM;
		memcpy(copy, buf, len);
		buf = copy;
	}
	flatbuffers::Verifier v(buf, len);
	int rc;
	struct tfl_model *m = nullptr;
	if (!tflite::VerifyModelBuffer(v)) {
		rc =
		    imp_fail(err, errlen,
			     "not a valid TFLite model: the flatbuffer does not verify against the "
			     "schema (truncated or corrupt, %zu bytes)",
			     len);
	} else if (!(m = static_cast<tfl_model *>(calloc(1, sizeof(*m))))) {
		rc = -ENOMEM;
	} else {
		rc = copy_model(tflite::GetModel(buf), m, err, errlen);
	}
	if (rc == -ENOMEM)
		imp_fail(err, errlen, "out of memory");
	if (rc)
		tfl_free(m);
	else
		*out = m;
	free(copy);
	return rc;
}

extern "C" void tfl_free(struct tfl_model *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; m->buffers && i < m->n_buffers; i++)
		free(m->buffers[i].data);
	for (uint32_t i = 0; m->tensors && i < m->n_tensors; i++) {
		free(m->tensors[i].scale);
		free(m->tensors[i].zero_point);
	}
	for (uint32_t i = 0; m->ops && i < m->n_ops; i++) {
		free(m->ops[i].inputs);
		free(m->ops[i].outputs);
	}
	free(m->buffers);
	free(m->tensors);
	free(m->ops);
	free(m->opcodes);
	free(m->inputs);
	free(m->outputs);
	free(m);
}

extern "C" const char *tfl_op_name(int32_t builtin)
{
	if (builtin < tflite::BuiltinOperator_MIN || builtin > tflite::BuiltinOperator_MAX)
		return "";
	return tflite::EnumNameBuiltinOperator(static_cast<tflite::BuiltinOperator>(builtin));
}

extern "C" const char *tfl_type_name(int32_t type)
{
	if (type < tflite::TensorType_MIN || type > tflite::TensorType_MAX)
		return "";
	return tflite::EnumNameTensorType(static_cast<tflite::TensorType>(type));
}
