"""Device.matmul: int8 against NumPy's integer matmul and against `tpu matmul` on the same
.npy files, bf16 against NumPy's float product within docs/training.md's bound and bit for bit
against the C library's tpu_bf16_* reference, and the errors."""
import errno

import numpy as np
import pytest

import tpu
from conftest import run_cli, sim_uri
from tpu import _lib

INT8_DEVICES = ["golden:n=16", "golden:n=4", sim_uri("n16")]
BF16_DEVICES = ["golden:bf16=1", "golden:bf16=1,n=4", sim_uri("b8")]
SHAPES = [(1, 1, 1), (5, 7, 3), (33, 70, 17), (20, 300, 48)]


def int8(rng, *shape):
    return rng.integers(-128, 128, shape, dtype=np.int8)


@pytest.fixture(params=INT8_DEVICES)
def dev(request):
    with tpu.Device(request.param) as d:
        yield d


@pytest.fixture(params=BF16_DEVICES)
def bf16_dev(request):
    with tpu.Device(request.param) as d:
        yield d


# ------------------------------------------------------------------ int8
@pytest.mark.parametrize("m,k,n", SHAPES)
def test_int8_raw_equals_numpy(dev, rng, m, k, n):
    a, b = int8(rng, m, k), int8(rng, k, n)
    c = dev.matmul(a, b)
    assert c.dtype == np.int32 and c.shape == (m, n)
    np.testing.assert_array_equal(c, a.astype(np.int64) @ b.astype(np.int64))


def test_int8_zero_point_and_bias_equal_numpy(dev, rng):
    a, b = int8(rng, 9, 40), int8(rng, 40, 13)
    bias = rng.integers(-10**6, 10**6, 13, dtype=np.int32)
    c = dev.matmul(a, b, in_zero_point=-7, bias=bias)
    np.testing.assert_array_equal(c, (a.astype(np.int64) + 7) @ b.astype(np.int64) + bias)


def test_int8_transposed_views_are_copied(dev, rng):
    a, b = int8(rng, 40, 9), int8(rng, 13, 40)
    np.testing.assert_array_equal(dev.matmul(a.T, b.T), a.T.astype(np.int64) @ b.T)


def test_int8_b_zero_point_equals_numpy(dev, rng):
    a, b = int8(rng, 11, 50), int8(rng, 50, 13)
    zb = rng.integers(-128, 128, 13, dtype=np.int32)
    for given, want_zb in ((zb, zb), (-128, -128)):
        c = dev.matmul(a, b, in_zero_point=4, b_zero_point=given)
        np.testing.assert_array_equal(
            c, (a.astype(np.int64) - 4) @ (b.astype(np.int64) - want_zb))


def test_int8_float_rounding_equals_numpy_float32(dev, rng):
    """round="float" is ONNX Runtime's requantization: fp32(acc) x fp32 scale, rounded half to
    even, here against NumPy's float32 arithmetic (np.rint rounds half to even)."""
    a, b = int8(rng, 16, 64), int8(rng, 64, 12)
    scale = np.float32(0.0037)
    m = np.frombuffer(np.float32(scale).tobytes(), np.uint32)[0]
    mant, exp = (m & 0x7FFFFF) | 0x800000, int(m >> 23) - 127
    # scale = mant x 2^(exp - 23) = (mant << 7) x 2^(shift - 31) with shift = exp + 1
    c = dev.matmul(a, b, multiplier=int(mant) << 7, shift=exp + 1, out_zero_point=3,
                   round="float")
    acc = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float32)
    want = np.clip(np.rint(acc * scale) + 3, -128, 127).astype(np.int8)
    np.testing.assert_array_equal(c, want)


REQUANT = {
    "raw": {},
    "raw_bias_zp": dict(bias="bias", in_zero_point=3),
    "per_tensor": dict(multiplier=1 << 30, shift=-6),
    "per_channel": dict(bias="bias", multiplier="mult", shift="shift", in_zero_point=-3,
                        out_zero_point=5, clamp=(0, 127)),
    "lut": dict(multiplier=1 << 30, shift=-7, out_zero_point=-2, lut="lut"),
}


@pytest.mark.parametrize("case", REQUANT)
def test_int8_equals_cli(dev, rng, tmp_path, case):
    """The same .npy files through `tpu matmul` give the same array, dtype and shape."""
    m, k, n = 11, 50, 19
    arrays = {"a": int8(rng, m, k), "b": int8(rng, k, n),
              "bias": rng.integers(-5000, 5000, n, dtype=np.int32),
              "mult": rng.integers(1 << 29, 1 << 31, n, dtype=np.int64).astype(np.int32),
              "shift": rng.integers(-9, -4, n, dtype=np.int32),
              "lut": rng.integers(-128, 128, 256, dtype=np.int8)}
    kw = {key: arrays[v] if isinstance(v, str) else v for key, v in REQUANT[case].items()}
    got = dev.matmul(arrays["a"], arrays["b"], **kw)

    for name, arr in arrays.items():
        np.save(tmp_path / f"{name}.npy", arr)
    args = ["--device", dev.uri, "matmul", tmp_path / "a.npy", tmp_path / "b.npy",
            "-o", tmp_path / "c.npy"]
    for key, v in REQUANT[case].items():
        opt = "--" + key.replace("_", "-")
        if isinstance(v, str):
            args += [opt, tmp_path / f"{v}.npy"]
        elif key == "clamp":
            args += [opt, f"{v[0]},{v[1]}"]
        elif key in ("multiplier", "shift"):  # per tensor: a 1-element file
            np.save(tmp_path / f"{key}1.npy", np.array([v], np.int32))
            args += [opt, tmp_path / f"{key}1.npy"]
        else:
            args += [opt, v]
    run_cli(*args)
    want = np.load(tmp_path / "c.npy")
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------------ bf16
def bf16_bits(x):
    """float32 -> bf16 bit patterns through the C library (tpu_f32_to_bf16)."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32)
    return np.array([_lib.lib.tpu_f32_to_bf16(int(v)) for v in bits.ravel()],
                    np.uint16).reshape(x.shape)


def bf16_reference(a, b, bias, tile):
    """C[i][j] = tpu_bf16_dot_tiled(row i, column j, k, N, +0, no accumulate), then
    tpu_f32_add of the bias (include/tpu/tpu.h, tpu_gemm_ex with TPU_DTYPE_BF16)."""
    a16, b16 = bf16_bits(a), np.ascontiguousarray(bf16_bits(b).T)
    m, k = a.shape
    out = np.empty((m, b.shape[1]), np.uint32)
    for i in range(m):
        for j in range(b.shape[1]):
            s = _lib.lib.tpu_bf16_dot_tiled(_lib.ptr(a16[i], _lib.c_uint16),
                                            _lib.ptr(b16[j], _lib.c_uint16), k, tile, 0, False)
            if bias is not None:
                s = _lib.lib.tpu_f32_add(s, int(bias.view(np.uint32)[j]))
            out[i, j] = s
    return out.view(np.float32)


def error_bound(a, b, bias):
    """docs/training.md: |got - exact| <= (2^-7 + 2^-16 + (k + 1) 2^-24) (sum |a b| + |bias|)."""
    k = a.shape[1]
    mag = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    if bias is not None:
        mag += np.abs(bias.astype(np.float64))
    return (2.0**-7 + 2.0**-16 + (k + 1) * 2.0**-24) * mag


def floats(rng, *shape):
    return (rng.standard_normal(shape) * rng.choice([0.01, 1, 300], shape)).astype(np.float32)


@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("with_bias", [False, True])
def test_bf16_bound_and_bits(bf16_dev, rng, m, k, n, with_bias):
    a, b = floats(rng, m, k), floats(rng, k, n)
    bias = floats(rng, n) if with_bias else None
    got = bf16_dev.matmul(a, b, dtype="bf16", bias=bias)
    assert got.dtype == np.float32 and got.shape == (m, n)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    if bias is not None:
        exact += bias
    assert np.all(np.abs(got - exact) <= error_bound(a, b, bias))
    want = bf16_reference(a, b, bias, bf16_dev.info()["array_n"])
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_bf16_equals_cli(bf16_dev, rng, tmp_path):
    a, b, bias = floats(rng, 7, 45, ), floats(rng, 45, 10), floats(rng, 10)
    got = bf16_dev.matmul(a, b, dtype="bf16", bias=bias)
    for name, arr in (("a", a), ("b", b), ("bias", bias)):
        np.save(tmp_path / f"{name}.npy", arr)
    run_cli("--device", bf16_dev.uri, "matmul", "--dtype", "bf16", tmp_path / "a.npy",
            tmp_path / "b.npy", "--bias", tmp_path / "bias.npy", "-o", tmp_path / "c.npy")
    want = np.load(tmp_path / "c.npy")
    assert want.dtype == np.float32
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("kwargs,name", [
    (dict(a=np.zeros((2, 3), np.float32)), "a"),
    (dict(a=[[1, 2, 3]]), "a"),
    (dict(b=np.zeros((4, 2), np.int8)), "b"),
    (dict(b=np.zeros(3, np.int8)), "b"),
    (dict(bias=np.zeros(3, np.int32)), "bias"),
    (dict(bias=np.zeros(2, np.float32)), "bias"),
    (dict(in_zero_point=200), "in_zero_point"),
    (dict(multiplier=-1), "multiplier"),
    (dict(multiplier=np.ones(3, np.int32)), "multiplier"),
    (dict(multiplier=1 << 30, shift=31), "shift"),
    (dict(shift=3), "shift"),
    (dict(out_zero_point=1), "out_zero_point"),
    (dict(multiplier=1 << 30, clamp=(5, 4)), "clamp"),
    (dict(multiplier=1 << 30, round="nearest"), "round"),
    (dict(round="float"), "round"),
    (dict(b_zero_point=128), "b_zero_point"),
    (dict(b_zero_point=np.zeros(3, np.int32)), "b_zero_point"),
    (dict(multiplier=1 << 30, clamp=7), "clamp"),
    (dict(multiplier=1 << 30, lut=np.zeros(255, np.int8)), "lut"),
    (dict(dtype="fp16"), "dtype"),
    (dict(dtype="bf16", multiplier=1), "multiplier"),
])
def test_bad_arguments_raise_value_error_naming_them(kwargs, name):
    args = dict(a=np.zeros((2, 3), np.int8), b=np.zeros((3, 2), np.int8))
    args.update(kwargs)
    a, b = args.pop("a"), args.pop("b")
    with tpu.Device("golden:n=4") as d, pytest.raises(ValueError, match=f"^{name}: "):
        d.matmul(a, b, **args)


def test_library_errors_carry_strerror():
    with tpu.Device("golden:n=4") as d:
        # the K limit (tpu/numerics.h TPU_K_NO_OVERFLOW): refused by the library
        k = 131072
        with pytest.raises(tpu.TpuError) as e:
            d.matmul(np.ones((1, k), np.int8), np.ones((k, 1), np.int8))
        assert e.value.code == -errno.ERANGE
        assert _lib.strerror(-errno.ERANGE) in str(e.value) and e.value.detail
        # bf16 on an int8-only device
        with pytest.raises(tpu.TpuError) as e:
            d.matmul(np.ones((1, 1), np.float32), np.ones((1, 1), np.float32), dtype="bf16")
        assert e.value.code == -errno.ENOTSUP and "bf16" in str(e.value)
    with pytest.raises(tpu.TpuError) as e:
        tpu.Device("golden:n=0")
    assert e.value.code == -errno.EINVAL and "'n'" in str(e.value)
    assert str(e.value).startswith("open 'golden:n=0': " + _lib.strerror(-errno.EINVAL))


def test_info_and_lifecycle():
    with tpu.Device("golden:n=8") as d:
        info = d.info()
        assert info["backend"] == "golden" and info["array_n"] == 8 and not info["bf16"]
        assert d.perf()["cycles"] == 0
        d.matmul(np.ones((8, 8), np.int8), np.ones((8, 8), np.int8))
        assert d.perf()["macs"] > 0
    with pytest.raises(ValueError, match="closed"):
        d.info()
    d.close()  # a second close does nothing
    with tpu.Device("golden:bf16=1") as d:
        assert d.info()["bf16"]
