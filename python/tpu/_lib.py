"""libtpu.so through ctypes: finding and loading it, the structs of include/tpu/ the package
reads or fills, the prototypes of the functions it calls, and check() turning a return code
into TpuError. Nothing here is public API."""
import ctypes
import os
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_float, c_int, c_int8,
                    c_int32, c_size_t, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)
from pathlib import Path

from .errors import TpuError

SO_MAJOR = 0
LIB_NAME = f"libtpu.so.{SO_MAJOR}"
SIM_LIB_NAME = f"libtpu_sim.so.{SO_MAJOR}"


def _lib_dirs():
    """Where to look, in order: $TPU_LIBDIR, the LIBDIR `make install` wrote into _libdir.py,
    the build tree of a source checkout (python/tpu -> build/lib), then the system's loader
    path (None)."""
    if os.environ.get("TPU_LIBDIR"):
        yield os.environ["TPU_LIBDIR"]
    try:
        from ._libdir import LIBDIR
        yield LIBDIR
    except ImportError:
        pass
    yield str(Path(__file__).resolve().parent.parent.parent / "build" / "lib")
    yield None


def _load():
    for d in _lib_dirs():
        path = os.path.join(d, LIB_NAME) if d else LIB_NAME
        if d and not os.path.exists(path):
            continue
        sim = os.path.join(d, SIM_LIB_NAME) if d else SIM_LIB_NAME
        try:
            # first, and global: libtpu.so's weak references to the models resolve to it
            ctypes.CDLL(sim, mode=ctypes.RTLD_GLOBAL)
            have_sim = True
        except OSError:
            have_sim = False
        try:
            return ctypes.CDLL(path), have_sim
        except OSError:
            if d:
                raise
    raise ImportError(f"tpu: cannot find {LIB_NAME} (build it with `make`, install it with "
                      f"`make install`, or name its directory in TPU_LIBDIR)")


lib, HAVE_SIM = _load()


# ------------------------------------------------------------------ structs (include/tpu/*.h)
class Info(Structure):
    _fields_ = [(n, c_uint32) for n in (
        "id", "version", "array_n", "ub_rows", "acc_rows", "fifo_tiles", "num_queues",
        "num_windows", "max_queue_entries", "timeout_units", "queue_depth", "opcodes",
        "features")] + [("backend", c_char * 16)]


class Perf(Structure):
    _fields_ = [("cycles", c_uint64), ("mxu_busy_cycles", c_uint64), ("macs", c_uint64),
                ("dma_read_bytes", c_uint64), ("dma_write_bytes", c_uint64),
                ("commands", c_uint32), ("errors", c_uint32)]


class GemmParams(Structure):
    _fields_ = [("in_zero_point", c_int32), ("bias", POINTER(c_int32)),
                ("quant_channels", c_size_t), ("multiplier", POINTER(c_int32)),
                ("shift", POINTER(c_int32)), ("out_zero_point", c_int32),
                ("clamp_min", c_int32), ("clamp_max", c_int32), ("lut", POINTER(c_int8)),
                ("round", c_int), ("b_zero_point", POINTER(c_int32)),
                ("b_zp_channels", c_size_t)]


class Quant(Structure):
    _fields_ = [("scale", c_float), ("zero_point", c_int32)]


class ModelHead(Structure):
    """The leading fields of struct tpu_model (its layers follow). Only ever read through a
    pointer the library allocated, never allocated here."""
    _fields_ = [("name", c_char * 32), ("in_h", c_uint32), ("in_w", c_uint32),
                ("in_c", c_uint32), ("in_", Quant), ("in_range", c_float),
                ("num_classes", c_uint32), ("float_accuracy", c_float),
                ("int8_accuracy", c_float), ("n_layers", c_uint32)]


MODEL_MAX_LAYERS = 32
LAYER_STAT_FIELDS = ("cycles", "mxu_busy_cycles", "macs", "dma_read_bytes", "dma_write_bytes")


class LayerStats(Structure):
    _fields_ = [(n, c_uint64) for n in LAYER_STAT_FIELDS] + [("wall_seconds", c_double)]


class ModelStats(Structure):
    _fields_ = [("n_layers", c_uint32), ("layer", LayerStats * MODEL_MAX_LAYERS),
                ("total", LayerStats)]


class TrainStats(Structure):
    _fields_ = [("gemms", c_uint64), ("cycles", c_uint64), ("mxu_busy_cycles", c_uint64),
                ("macs", c_uint64), ("device_seconds", c_double), ("host_seconds", c_double)]


class TrainGemmRec(Structure):
    _fields_ = [("trans_a", c_int), ("trans_b", c_int), ("m", c_size_t), ("n", c_size_t),
                ("k", c_size_t), ("cycles", c_uint64), ("macs", c_uint64)]


class TrainCtx(Structure):
    _fields_ = [("dev", c_void_p), ("array_n", c_uint32), ("a16", POINTER(c_uint16)),
                ("b16", POINTER(c_uint16)), ("a_cap", c_size_t), ("b_cap", c_size_t),
                ("col", POINTER(c_float)), ("dcol", POINTER(c_float)),
                ("col_cap", c_size_t), ("dcol_cap", c_size_t),
                ("stats", TrainStats), ("trace", POINTER(TrainGemmRec)),
                ("trace_len", c_size_t), ("trace_cap", c_size_t), ("err", c_char * 256)]


class Optim(Structure):
    _fields_ = [("kind", c_int), ("n", c_size_t), ("momentum", c_double), ("beta1", c_double),
                ("beta2", c_double), ("eps", c_double), ("weight_decay", c_double),
                ("t", c_uint64), ("m", POINTER(c_float)), ("v", POINTER(c_float))]


# enum values of include/tpu/*.h
TRANS_N, TRANS_T = 0, 1
OPTIM_SGD, OPTIM_ADAMW = 1, 2
FEATURES_BF16_MASK = 1  # FEATURES.BF16, tpu_spec.h's TPU_FEATURES_BF16_MASK
FEATURES_ROUND_MASK = 2  # FEATURES.ROUND, TPU_FEATURES_ROUND_MASK

# ------------------------------------------------------------------ prototypes
P_I8, P_U8, P_I32, P_U16, P_U32, P_F32 = (POINTER(t) for t in (c_int8, c_uint8, c_int32,
                                                               c_uint16, c_uint32, c_float))
_PROTOS = {
    "tpu_open": (c_int, [c_char_p, POINTER(c_void_p)]),
    "tpu_last_open_error": (c_char_p, []),
    "tpu_close": (c_int, [c_void_p]),
    "tpu_get_info": (c_int, [c_void_p, POINTER(Info)]),
    "tpu_perf_read": (c_int, [c_void_p, POINTER(Perf)]),
    "tpu_perf_clear": (c_int, [c_void_p]),
    "tpu_strerror": (c_char_p, [c_int]),
    "tpu_gemm_params_init": (None, [POINTER(GemmParams)]),
    "tpu_gemm": (c_int, [c_void_p, c_size_t, c_size_t, c_size_t, P_I8, P_I8,
                         POINTER(GemmParams), c_void_p]),
    "tpu_gemm_last_error": (c_char_p, [c_void_p]),
    "tpu_ops_last_error": (c_char_p, [c_void_p]),
    "tpu_model_load": (c_int, [c_char_p, POINTER(c_void_p), c_char_p, c_size_t]),
    "tpu_model_free": (None, [c_void_p]),
    "tpu_model_save": (c_int, [c_void_p, c_char_p, c_char_p, c_size_t]),
    "tpu_import_onnx": (c_int, [c_char_p, c_char_p, POINTER(c_void_p), c_char_p, c_size_t]),
    "tpu_import_tflite": (c_int, [c_char_p, c_char_p, c_int, POINTER(c_void_p), c_char_p,
                                  c_size_t]),
    "tpu_model_quantize_input": (None, [c_void_p, P_F32, c_size_t, P_I8]),
    "tpu_model_io_layout": (c_uint32, [c_void_p]),
    "tpu_model_out_type": (c_uint32, [c_void_p]),
    "tpu_model_layer_out_shape": (None, [c_void_p, c_uint32, POINTER(c_uint32),
                                         POINTER(c_uint32), POINTER(c_uint32)]),
    "tpu_model_run": (c_int, [c_void_p, c_void_p, c_size_t, P_I8, P_I8,
                              POINTER(ModelStats)]),
    "tpu_model_run_i32": (c_int, [c_void_p, c_void_p, c_size_t, P_I8, P_I32,
                                  POINTER(ModelStats)]),
    "tpu_train_init": (c_int, [POINTER(TrainCtx), c_void_p]),
    "tpu_train_free": (None, [POINTER(TrainCtx)]),
    "tpu_train_gemm": (c_int, [POINTER(TrainCtx), c_int, c_int, c_size_t, c_size_t, c_size_t,
                               P_F32, P_F32, P_F32, P_F32]),
    "tpu_train_dense_forward": (c_int, [POINTER(TrainCtx), c_size_t, c_size_t, c_size_t,
                                        P_F32, P_F32, P_F32, P_F32]),
    "tpu_train_dense_backward": (c_int, [POINTER(TrainCtx), c_size_t, c_size_t, c_size_t,
                                         P_F32, P_F32, P_F32, P_F32, P_F32, P_F32]),
    "tpu_train_relu_forward": (None, [P_F32, c_size_t]),
    "tpu_train_relu_backward": (None, [P_F32, P_F32, c_size_t]),
    "tpu_train_softmax_xent": (c_int, [P_F32, P_U8, c_size_t, c_size_t, P_F32, P_F32,
                                       c_char_p, c_size_t]),
    "tpu_optim_init": (c_int, [POINTER(Optim), c_int, c_size_t, c_double]),
    "tpu_optim_step": (None, [POINTER(Optim), P_F32, P_F32, c_double]),
    "tpu_optim_free": (None, [POINTER(Optim)]),
    "tpu_f32_to_bf16": (c_uint16, [c_uint32]),
    "tpu_bf16_to_f32": (c_uint32, [c_uint16]),
    "tpu_f32_add": (c_uint32, [c_uint32, c_uint32]),
    "tpu_bf16_dot_tiled": (c_uint32, [P_U16, P_U16, ctypes.c_uint, ctypes.c_uint, c_uint32,
                                      ctypes.c_bool]),
}
for _name, (_res, _args) in _PROTOS.items():
    _f = getattr(lib, _name)
    _f.restype, _f.argtypes = _res, _args


def text(b):
    """A C string (bytes, or None for NULL) or a str as str."""
    if isinstance(b, str):
        return b
    return b.decode("utf-8", "replace") if b else ""


def strerror(code):
    return text(lib.tpu_strerror(code))


def fields(struct):
    """A ctypes struct's fields as a dict."""
    return {name: getattr(struct, name) for name, _ in type(struct)._fields_}


def check(rc, what, detail=""):
    """Raise TpuError for a non-zero return code; detail may be a callable, asked only then."""
    if rc:
        raise TpuError(rc, what, strerror(rc), text(detail() if callable(detail) else detail))


def ptr(array, ctype):
    """A pointer to a NumPy array's data (None stays NULL); the caller keeps the array alive."""
    return None if array is None else array.ctypes.data_as(POINTER(ctype))
