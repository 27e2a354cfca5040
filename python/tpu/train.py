"""The training ops of include/tpu/train.h (docs/training.md): bf16 GEMMs and dense layers on
a device with the bf16 mode, ReLU, softmax cross-entropy and the optimizers, on float32 NumPy
arrays. The library has no whole-model trainer: `tpu train` (the CLI) trains, checkpoints and
quantizes the digits models; these are the building blocks a training loop in Python uses
(docs/python.md has one)."""
import ctypes

import numpy as np

from . import _args
from ._owner import Owner
from ._lib import (OPTIM_ADAMW, OPTIM_SGD, TRANS_N, TRANS_T, Optim, TrainCtx, check, fields,
                   lib, ptr)

_F32 = ctypes.c_float


def _f32(name, x, ndim=None):
    return _args.array(name, x, np.float32, ndim)


def _shape(name, x, shape):
    if x.shape != shape:
        raise ValueError(f"{name}: shape {x.shape}, expected {shape}")


class TrainContext(Owner):
    """A struct tpu_train_ctx bound to a Device with the bf16 mode (tpu_train_init: TpuError
    otherwise). Every product runs on the device: operands rounded to bf16 to nearest even,
    fp32 sums in the device's order."""

    def __init__(self, device):
        self.device = device
        self._ctx = TrainCtx()
        rc = lib.tpu_train_init(ctypes.byref(self._ctx), device.handle)
        check(rc, f"training ops on '{device.uri}'", self._ctx.err)
        self._live = True

    def _release(self):
        lib.tpu_train_free(ctypes.byref(self._ctx))

    def _call(self, what, fn, *args):
        if not self._live:
            raise ValueError("the training context is closed")
        self.device.handle  # ValueError once the device is closed
        self._ctx.err = b""
        check(fn(ctypes.byref(self._ctx), *args), what, lambda: self._ctx.err)

    @property
    def stats(self):
        """struct tpu_train_stats summed over every op so far, as a dict."""
        return fields(self._ctx.stats)

    def gemm(self, a, b, *, bias=None, trans_a=False, trans_b=False):
        """tpu_train_gemm: float32 C (m, n) = op(A)·op(B) + bias, op(A) (m, k) (a stored
        (k, m) with trans_a), op(B) (k, n) (b stored (n, k) with trans_b), bias None or n
        float32 added on the device after the last K-tile."""
        a, b = _f32("a", a, 2), _f32("b", b, 2)
        m, k = a.shape[::-1] if trans_a else a.shape
        kb, n = b.shape[::-1] if trans_b else b.shape
        if kb != k:
            raise ValueError(f"b: shape {b.shape} does not fit a {a.shape} "
                             f"(trans_a={trans_a}, trans_b={trans_b})")
        if bias is not None:
            bias = _f32("bias", bias, 1)
            _shape("bias", bias, (n,))
        c = np.empty((m, n), np.float32)
        self._call("gemm", lib.tpu_train_gemm, TRANS_T if trans_a else TRANS_N,
                   TRANS_T if trans_b else TRANS_N, m, n, k, ptr(a, _F32), ptr(b, _F32),
                   ptr(bias, _F32), ptr(c, _F32))
        return c

    def dense_forward(self, x, w, b):
        """y (batch, out) = x (batch, in) · w (in, out) + b (out,)."""
        x, w, b = _f32("x", x, 2), _f32("w", w, 2), _f32("b", b, 1)
        batch, n_in = x.shape
        _shape("w", w, (n_in, w.shape[1]))
        _shape("b", b, (w.shape[1],))
        y = np.empty((batch, w.shape[1]), np.float32)
        self._call("dense_forward", lib.tpu_train_dense_forward, batch, n_in, w.shape[1],
                   ptr(x, _F32), ptr(w, _F32), ptr(b, _F32), ptr(y, _F32))
        return y

    def dense_backward(self, x, w, dy, *, need_dx=True):
        """(dw, db, dx) given dy (batch, out): dw = xᵀ·dy, db = column sums of dy, dx = dy·wᵀ
        (None without need_dx: the first layer)."""
        x, w, dy = _f32("x", x, 2), _f32("w", w, 2), _f32("dy", dy, 2)
        batch, n_in = x.shape
        n_out = dy.shape[1]
        _shape("w", w, (n_in, n_out))
        _shape("dy", dy, (batch, n_out))
        dw = np.empty((n_in, n_out), np.float32)
        db = np.empty(n_out, np.float32)
        dx = np.empty((batch, n_in), np.float32) if need_dx else None
        self._call("dense_backward", lib.tpu_train_dense_backward, batch, n_in, n_out,
                   ptr(x, _F32), ptr(w, _F32), ptr(dy, _F32), ptr(dw, _F32), ptr(db, _F32),
                   ptr(dx, _F32))
        return dw, db, dx


def relu(y):
    """tpu_train_relu_forward on a copy of y (float32)."""
    out = _f32("y", y).copy()
    lib.tpu_train_relu_forward(ptr(out, _F32), out.size)
    return out


def relu_backward(y, dy):
    """tpu_train_relu_backward: dy with zeros where the ReLU's output y is <= 0 (a copy)."""
    y = _f32("y", y)
    out = _f32("dy", dy, y.ndim).copy()
    _shape("dy", out, y.shape)
    lib.tpu_train_relu_backward(ptr(y, _F32), ptr(out, _F32), out.size)
    return out


def softmax_xent(logits, labels):
    """tpu_train_softmax_xent: (mean loss, dlogits) of logits (batch, classes) against labels
    (batch integers in 0..classes-1); dlogits = (softmax - onehot) / batch."""
    logits = _f32("logits", logits, 2)
    batch, classes = logits.shape
    lab = _args.int_vector("labels", labels, batch, 0, min(classes - 1, 255))
    lab = lab.astype(np.uint8)
    loss = ctypes.c_float()
    dlogits = np.empty_like(logits)
    err = ctypes.create_string_buffer(256)
    rc = lib.tpu_train_softmax_xent(ptr(logits, _F32), ptr(lab, ctypes.c_uint8), batch, classes,
                                    ctypes.byref(loss), ptr(dlogits, _F32), err, len(err))
    check(rc, "softmax_xent", err.value)
    return loss.value, dlogits


class Optimizer(Owner):
    """struct tpu_optim over one flat float32 parameter vector of n values: kind "sgd"
    (momentum 0.9) or "adamw" (betas 0.9, 0.999, eps 1e-8), with weight_decay."""

    _KINDS = {"sgd": OPTIM_SGD, "adamw": OPTIM_ADAMW}

    def __init__(self, kind, n, weight_decay=0.0):
        if kind not in self._KINDS:
            raise ValueError(f"kind: {kind!r}, expected 'sgd' or 'adamw'")
        self.n = _args.int_scalar("n", n, 1, 2**62)
        self._o = Optim()
        check(lib.tpu_optim_init(ctypes.byref(self._o), self._KINDS[kind], self.n,
                                 float(weight_decay)), "optimizer")
        self.kind = kind
        self._live = True

    def _release(self):
        lib.tpu_optim_free(ctypes.byref(self._o))

    @property
    def steps(self):
        return self._o.t

    def step(self, param, grad, lr):
        """One step of learning rate lr: param (float32, n values, C-contiguous, updated in
        place) from grad (float32, n values)."""
        if not self._live:
            raise ValueError("the optimizer is closed")
        if not isinstance(param, np.ndarray) or param.dtype != np.float32 \
                or not param.flags.c_contiguous or not param.flags.writeable:
            raise ValueError("param: expected a writeable C-contiguous float32 array "
                             "(updated in place)")
        if param.size != self.n:
            raise ValueError(f"param: {param.size} values, expected {self.n}")
        grad = _f32("grad", grad)
        if grad.size != self.n:
            raise ValueError(f"grad: {grad.size} values, expected {self.n}")
        lib.tpu_optim_step(ctypes.byref(self._o), ptr(param, _F32), ptr(grad, _F32), float(lr))
