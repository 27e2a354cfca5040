/* Inference of a validated model on a device, layer by layer through the ops library
 * (include/tpu/ops.h), with per-layer figures from the performance counters; input
 * quantization and argmax. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model_priv.h"
#include "ops_priv.h"

/* Host bytes of one activation buffer per chunk: bounds the intermediate tensors of a batch.
 * The device's DMA arena is handled by the ops themselves (they split rows on -ENOMEM). */
#define RUN_CHUNK_BYTES (8u << 20)

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void add_stats(struct tpu_layer_stats *to, const struct tpu_layer_stats *s)
{
	to->cycles += s->cycles;
	to->mxu_busy_cycles += s->mxu_busy_cycles;
	to->macs += s->macs;
	to->dma_read_bytes += s->dma_read_bytes;
	to->dma_write_bytes += s->dma_write_bytes;
	to->wall_seconds += s->wall_seconds;
}

static void perf_delta(const struct tpu_perf *a, const struct tpu_perf *b,
		       struct tpu_layer_stats *s)
{
	s->cycles = b->cycles - a->cycles;
	s->mxu_busy_cycles = b->mxu_busy_cycles - a->mxu_busy_cycles;
	s->dma_read_bytes = b->dma_read_bytes - a->dma_read_bytes;
	s->dma_write_bytes = b->dma_write_bytes - a->dma_write_bytes;
}

/* The GEMM parameters of CONV2D/DENSE layer l whose input has zero point z_in; raw: the int32
 * output layer (no requantization). */
static int layer_params(const struct tpu_layer *l, int32_t z_in, bool raw,
			struct tpu_gemm_params *p)
{
	tpu_gemm_params_init(p);
	p->in_zero_point = z_in;
	p->bias = l->bias; /* unfolded: tpu_gemm folds z_in into it */
	p->b_zero_point = l->b_zero_point;
	p->b_zp_channels = l->b_zp_count;
	if (raw)
		return 0; /* quant_channels 0: int32 sums */
	p->quant_channels = l->out_c;
	p->multiplier = l->multiplier;
	p->shift = l->shift;
	p->out_zero_point = l->out.zero_point;
	p->lut = l->act == TPU_ACT_SIGMOID || l->act == TPU_ACT_TANH ? l->lut : NULL;
	p->round = (enum tpu_round)l->round;
	return tpu_act_clamp((enum tpu_activation)l->act, l->out.scale, l->out.zero_point,
			     &p->clamp_min, &p->clamp_max);
}

/* A pool layer on the host: the device has no pooling unit, so no counter moves. */
static int run_pool(tpu_dev *dev, const struct tpu_layer *l, const struct tpu_layer_geom *g,
		    const struct tpu_quant *q_in, size_t cnt, const int8_t *src, int8_t *dst)
{
	struct tpu_pool2d_shape ps = {
	    .batch = cnt,
	    .in_h = g->in_h,
	    .in_w = g->in_w,
	    .channels = g->in_c,
	    .pool_h = l->kernel_h,
	    .pool_w = l->kernel_w,
	    .stride_h = l->stride_h,
	    .stride_w = l->stride_w,
	    .pad_top = l->pad_top,
	    .pad_bottom = l->pad_bottom,
	    .pad_left = l->pad_left,
	    .pad_right = l->pad_right,
	    .ceil_mode = (int)l->ceil_mode,
	};
	if (l->type == TPU_LAYER_MAXPOOL2D)
		return tpu_maxpool2d(&ps, src, dst);
	struct tpu_avgpool2d_params p = {
	    .mode = (enum tpu_avgpool_mode)l->avg_mode,
	    .flags = l->avg_flags,
	    .in_scale = q_in->scale,
	    .out_scale = l->out.scale,
	    .in_zero_point = q_in->zero_point,
	    .out_zero_point = l->out.zero_point,
	};
	char why[256];
	int rc = tpu_act_clamp((enum tpu_activation)l->act, l->out.scale, l->out.zero_point,
			       &p.clamp_min, &p.clamp_max);
	if (!rc && (rc = tpu_avgpool2d(&ps, &p, src, dst, why, sizeof(why))))
		tpu_ops_reject(dev, "%s", why);
	return rc;
}

/* Run layer l (shape g, input quantized with q_in) on cnt examples from src into dst (int8, or
 * int32 for the raw output layer); *s gets its figures. */
static int run_layer(tpu_dev *dev, const struct tpu_layer *l, const struct tpu_layer_geom *g,
		     const struct tpu_quant *q_in, bool raw, size_t cnt, const int8_t *src,
		     void *dst, struct tpu_layer_stats *s)
{
	memset(s, 0, sizeof(*s));
	double t0 = now_seconds();
	if (tpu_layer_is_pool(l->type)) {
		int rc = run_pool(dev, l, g, q_in, cnt, src, dst);
		s->wall_seconds = now_seconds() - t0;
		return rc;
	}
	struct tpu_gemm_params p;
	struct tpu_perf before, after;
	int rc = layer_params(l, q_in->zero_point, raw, &p);
	if (rc)
		return rc;
	rc = tpu_perf_read(dev, &before);
	if (rc)
		return rc;
	if (l->type == TPU_LAYER_CONV2D) {
		struct tpu_conv2d_shape cs = {
		    .batch = cnt,
		    .in_h = g->in_h,
		    .in_w = g->in_w,
		    .in_c = g->in_c,
		    .out_c = l->out_c,
		    .kernel_h = l->kernel_h,
		    .kernel_w = l->kernel_w,
		    .stride_h = l->stride_h,
		    .stride_w = l->stride_w,
		    .pad_top = l->pad_top,
		    .pad_bottom = l->pad_bottom,
		    .pad_left = l->pad_left,
		    .pad_right = l->pad_right,
		    .dilation_h = l->dilation_h,
		    .dilation_w = l->dilation_w,
		    .groups = l->groups,
		};
		rc = tpu_conv2d(dev, &cs, src, l->weights, &p, dst);
	} else {
		rc = tpu_dense(dev, cnt, (size_t)g->k, l->out_c, src, l->weights, &p, dst);
	}
	if (rc)
		return rc;
	rc = tpu_perf_read(dev, &after);
	if (rc)
		return rc;
	s->wall_seconds = now_seconds() - t0;
	perf_delta(&before, &after, s);
	s->macs = (uint64_t)cnt * g->out_h * g->out_w * g->n_weights;
	return 0;
}

struct run_plan {
	struct tpu_layer_geom g[TPU_MODEL_MAX_LAYERS];
	size_t in_elems;  /* per example */
	size_t max_elems; /* largest tensor of one example */
};

static int plan_run(const struct tpu_model *m, struct run_plan *pl)
{
	uint32_t h = m->in_h, w = m->in_w, c = m->in_c;
	pl->in_elems = (size_t)h * w * c;
	pl->max_elems = pl->in_elems;
	for (uint32_t i = 0; i < m->n_layers; i++) {
		int rc = tpu_model_layer_geom(&m->layers[i], i, h, w, c, &pl->g[i], NULL, 0);
		if (rc)
			return rc;
		h = pl->g[i].out_h;
		w = pl->g[i].out_w;
		c = pl->g[i].out_c;
		size_t e = (size_t)h * w * c;
		if (e > pl->max_elems)
			pl->max_elems = e;
	}
	return 0;
}

/* Every layer on cnt examples; stats of the chunk into st (zeroed first). out: int8, or int32
 * for an INT32 model. */
static int run_chunk(tpu_dev *dev, const struct tpu_model *m, const struct run_plan *pl, size_t cnt,
		     const int8_t *in, void *out, int8_t *buf[2], struct tpu_model_stats *st)
{
	memset(st, 0, sizeof(*st));
	const int8_t *src = in;
	const struct tpu_quant *q_in = &m->in;
	for (uint32_t i = 0; i < m->n_layers; i++) {
		bool last = i + 1 == m->n_layers;
		void *dst = last ? out : buf[i & 1];
		int rc = run_layer(dev, &m->layers[i], &pl->g[i], q_in,
				   last && m->out_type == TPU_IO_INT32, cnt, src, dst,
				   &st->layer[i]);
		if (rc)
			return rc;
		src = dst;
		q_in = &m->layers[i].out;
	}
	return 0;
}

/* tpu_model_run and tpu_model_run_i32: out has elements of out_size bytes. */
static int model_run(tpu_dev *dev, const struct tpu_model *m, size_t batch, const int8_t *in,
		     void *out, size_t out_size, struct tpu_model_stats *stats)
{
	struct run_plan *pl = malloc(sizeof(*pl));
	struct tpu_model_stats *st = malloc(sizeof(*st));
	int8_t *buf[2] = {NULL, NULL};
	int rc = -ENOMEM;
	if (!pl || !st)
		goto out_free;
	if ((rc = plan_run(m, pl)))
		goto out_free;
	size_t chunk = RUN_CHUNK_BYTES / pl->max_elems;
	chunk = chunk < 1 ? 1 : chunk > batch ? batch : chunk;
	rc = -ENOMEM;
	buf[0] = malloc(chunk * pl->max_elems);
	buf[1] = malloc(chunk * pl->max_elems);
	if (!buf[0] || !buf[1])
		goto out_free;
	if (stats) {
		memset(stats, 0, sizeof(*stats));
		stats->n_layers = m->n_layers;
	}
	for (size_t done = 0; done < batch;) {
		size_t cnt = batch - done < chunk ? batch - done : chunk;
		rc = run_chunk(dev, m, pl, cnt, in + done * pl->in_elems,
			       (char *)out + done * (size_t)m->num_classes * out_size, buf, st);
		if (rc == -ENOMEM && cnt > 1) {
			/* the device's arena could not take it: smaller chunks from here on */
			chunk = cnt / 2;
			continue;
		}
		if (rc)
			goto out_free;
		if (stats)
			for (uint32_t i = 0; i < m->n_layers; i++) {
				add_stats(&stats->layer[i], &st->layer[i]);
				add_stats(&stats->total, &st->layer[i]);
			}
		done += cnt;
	}
	rc = 0;
out_free:
	free(buf[0]);
	free(buf[1]);
	free(st);
	free(pl);
	return rc;
}

int tpu_model_run(tpu_dev *dev, const struct tpu_model *m, size_t batch, const int8_t *in,
		  int8_t *out, struct tpu_model_stats *stats)
{
	if (!dev || !m || !in || !out || !batch || tpu_model_validate(m, NULL, 0))
		return -EINVAL;
	if (m->out_type == TPU_IO_INT32) {
		tpu_ops_reject(dev, "the model outputs int32 (out_type INT32): tpu_model_run_i32");
		return -EINVAL;
	}
	return model_run(dev, m, batch, in, out, 1, stats);
}

int tpu_model_run_i32(tpu_dev *dev, const struct tpu_model *m, size_t batch, const int8_t *in,
		      int32_t *out, struct tpu_model_stats *stats)
{
	if (!dev || !m || !in || !out || !batch || tpu_model_validate(m, NULL, 0))
		return -EINVAL;
	if (m->out_type != TPU_IO_INT32) {
		tpu_ops_reject(dev, "the model outputs int8 (out_type %s): tpu_model_run",
			       m->out_type == TPU_IO_UINT8 ? "UINT8" : "INT8");
		return -EINVAL;
	}
	return model_run(dev, m, batch, in, out, sizeof(int32_t), stats);
}

void tpu_model_quantize_input(const struct tpu_model *m, const float *raw, size_t count, int8_t *q)
{
	if (!m || !raw || !q)
		return;
	for (size_t i = 0; i < count; i++) {
		/* float arithmetic in this order, as the quantizer that recorded the model's
		 * int8 accuracy does; roundf rounds half away from zero, rintf (in the default
		 * rounding mode) half to even as ONNX QuantizeLinear (ONNX Runtime's MLAS:
		 * x / scale in fp32, then to nearest even) */
		float x = raw[i] / m->in_range / m->in.scale;
		float v = m->in_round == TPU_INPUT_ROUND_EVEN ? rintf(x) : roundf(x);
		float z = v + (float)m->in.zero_point;
		q[i] = (int8_t)(isnan(z)      ? m->in.zero_point
				: z < -128.0f ? -128
				: z > 127.0f  ? 127
					      : (int)z);
	}
}

uint32_t tpu_model_io_layout(const struct tpu_model *m)
{
	return m ? m->io_layout : 0;
}

uint32_t tpu_model_out_type(const struct tpu_model *m)
{
	return m ? m->out_type : 0;
}

size_t tpu_argmax_i8(const int8_t *v, size_t n)
{
	size_t best = 0;
	for (size_t i = 1; v && i < n; i++)
		if (v[i] > v[best])
			best = i;
	return best;
}
