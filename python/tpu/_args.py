"""Checks of the arguments NumPy callers pass: a wrong dtype, shape or range raises ValueError
naming the argument, before anything reaches the library."""
import numpy as np


def _dtype_name(x):
    return x.dtype.name if isinstance(x, np.ndarray) else type(x).__name__


def array(name, x, dtype, ndim=None):
    """x as a C-contiguous array of exactly dtype with ndim dimensions (any with None; a copy
    only when the layout needs one). dtype is never converted: a float array where int8 is
    wanted is an error, not a cast."""
    if not isinstance(x, np.ndarray) or x.dtype != np.dtype(dtype):
        raise ValueError(f"{name}: dtype {_dtype_name(x)}, expected {np.dtype(dtype).name}")
    if ndim is not None and x.ndim != ndim:
        raise ValueError(f"{name}: shape {x.shape}, expected {ndim} dimensions")
    if x.size == 0:
        raise ValueError(f"{name}: shape {x.shape} holds no values")
    return np.ascontiguousarray(x)


def int_vector(name, x, length, lo, hi, scalar_ok=False):
    """x (integers: a NumPy array, a list, or with scalar_ok a single int) as int32 of shape
    (length,), or (1,) for a scalar; each value in lo..hi."""
    a = np.asarray(x)
    if a.dtype.kind not in "iub":
        raise ValueError(f"{name}: dtype {_dtype_name(x)}, expected integers")
    if a.ndim == 0 and scalar_ok:
        a = a.reshape(1)
    if a.shape != (length,) and not (scalar_ok and a.shape == (1,)):
        want = f"({length},)" + (" or a scalar" if scalar_ok else "")
        raise ValueError(f"{name}: shape {a.shape}, expected {want}")
    if a.size and (a.min() < lo or a.max() > hi):
        raise ValueError(f"{name}: values must lie in {lo}..{hi}")
    return np.ascontiguousarray(a, dtype=np.int32)


def int_scalar(name, x, lo, hi):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise ValueError(f"{name}: {x!r} is not an integer")
    if not lo <= x <= hi:
        raise ValueError(f"{name}: {x} outside {lo}..{hi}")
    return int(x)


def matmul_shapes(a, b):
    """(m, k, n) of a (m x k) times b (k x n)."""
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"b: shape {b.shape}, but a {a.shape} needs {a.shape[1]} rows")
    return a.shape[0], a.shape[1], b.shape[1]
