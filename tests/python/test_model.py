"""Model.load + Model.run on the shipped models: the predictions `tpu run -o` writes for the
same data, the accuracy recorded in the model, the same int8 outputs on every device, and the
input rules and errors."""
import errno
from pathlib import Path

import numpy as np
import pytest

import tpu
from conftest import ROOT, run_cli, sim_uri

MODELS = sorted((ROOT / "models").glob("*.tpum"))
X = ROOT / "data" / "digits_test_x.npy"
Y = ROOT / "data" / "digits_test_y.npy"


@pytest.fixture(scope="module")
def golden():
    with tpu.Device("golden") as d:
        yield d


@pytest.fixture(params=MODELS, ids=[p.stem for p in MODELS])
def model(request):
    with tpu.Model.load(request.param) as m:
        yield m


def test_models_are_shipped():
    assert len(MODELS) >= 2 and X.exists() and Y.exists()


def test_predictions_equal_tpu_run(golden, model, tmp_path):
    x, y = np.load(X), np.load(Y)
    r = model.run(golden, x)
    assert r.outputs.shape == (len(x), model.num_classes) and r.outputs.dtype == np.int8
    assert r.predictions.dtype == np.int32
    run_cli("run", "--device", "golden", model.path, X, "-o", tmp_path / "pred.npy")
    np.testing.assert_array_equal(r.predictions, np.load(tmp_path / "pred.npy"))
    assert abs((r.predictions == y).mean() - model.int8_accuracy) < 1e-6
    assert r.stats["total"]["cycles"] > 0 and len(r.stats["layers"]) == model.n_layers


@pytest.mark.parametrize("uri", ["golden:n=8", sim_uri("n16")])
def test_outputs_equal_on_every_device(golden, model, uri):
    x = np.load(X)[:64]
    with tpu.Device(uri) as d:
        other = model.run(d, x)
    np.testing.assert_array_equal(other.outputs, model.run(golden, x).outputs)


def test_input_shapes_and_quantized(golden, model):
    h, w, c = model.input_shape
    x = np.load(X)[:5]
    want = model.run(golden, x).outputs
    for shaped in (x.reshape(5, h * w * c), x.reshape(5, h, w, c)):
        np.testing.assert_array_equal(model.run(golden, shaped).outputs, want)
    np.testing.assert_array_equal(model.run(golden, x[0].reshape(-1)).outputs, want[:1])
    q = model.quantize(x)
    assert q.dtype == np.int8 and q.shape == (5, h * w * c)
    np.testing.assert_array_equal(model.run(golden, q, quantized=True).outputs, want)
    np.testing.assert_array_equal(model.run(golden, x.astype(np.float32)).outputs, want)


def test_input_errors(golden, model):
    x = np.load(X)[:3]
    with pytest.raises(ValueError, match="^x: shape"):
        model.run(golden, x[:, :4])
    with pytest.raises(ValueError, match="^x: dtype float64"):
        model.run(golden, x.astype(np.float64))
    with pytest.raises(ValueError, match="^x: dtype uint8, but quantized"):
        model.run(golden, x, quantized=True)
    with pytest.raises(ValueError, match="^x: shape .* no examples"):
        model.run(golden, x[:0])


def test_load_errors(tmp_path):
    with pytest.raises(tpu.TpuError) as e:
        tpu.Model.load(tmp_path / "missing.tpum")
    assert e.value.code == -errno.ENOENT
    bad = tmp_path / "bad.tpum"
    bad.write_bytes(Path(MODELS[0]).read_bytes()[:100])
    with pytest.raises(tpu.TpuError) as e:
        tpu.Model.load(bad)
    assert e.value.code == -errno.EINVAL and e.value.detail


def test_save_is_the_same_bytes(model, tmp_path):
    """A loaded model saved again is the file it came from (one encoding per model)."""
    out = tmp_path / "again.tpum"
    model.save(out)
    assert out.read_bytes() == Path(model.path).read_bytes()
    with pytest.raises(tpu.TpuError) as e:
        model.save(tmp_path / "no-such-dir" / "x.tpum")
    assert e.value.code < 0 and not (tmp_path / "no-such-dir").exists()


def test_import_onnx_errors(tmp_path):
    with pytest.raises(tpu.TpuError) as e:
        tpu.Model.import_onnx(tmp_path / "missing.onnx")
    assert e.value.code == -errno.ENOENT
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07\x12\x04junk" * 3)
    with pytest.raises(tpu.TpuError) as e:
        tpu.Model.import_onnx(bad)
    assert e.value.code == -errno.EINVAL and e.value.detail


def test_import_tflite_fixture_and_errors(golden, tmp_path):
    """The committed TFLite fixtures (tests/tflite/fixtures/, tests/tflite/make_fixtures.py): the
    chain imports with either kernel set and runs; the same model through `tpu import` and
    `tpu run` gives the same outputs; a model with ADD is refused naming it."""
    fix = ROOT / "tests" / "tflite" / "fixtures"
    x = np.random.default_rng(5).uniform(-1, 1, (7, 6, 6, 1)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    for kernels in ("reference", "xnnpack"):
        if kernels == "xnnpack":  # a float input: refused under xnnpack (docs/import.md)
            with pytest.raises(tpu.TpuError) as e:
                tpu.Model.import_tflite(fix / "chain.tflite", kernels=kernels)
            assert "QUANTIZE" in e.value.detail
            continue
        with tpu.Model.import_tflite(fix / "chain.tflite", kernels=kernels) as m:
            assert m.input_shape == (6, 6, 1) and m.num_classes == 5
            got = m.run(golden, x).outputs
            m.save(tmp_path / "chain.tpum")
    run_cli("--device", "golden", "run", tmp_path / "chain.tpum", tmp_path / "x.npy",
            "--outputs", tmp_path / "y.npy")
    np.testing.assert_array_equal(got, np.load(tmp_path / "y.npy"))
    with pytest.raises(tpu.TpuError) as e:
        tpu.Model.import_tflite(fix / "bad_add.tflite")
    assert e.value.code == -errno.EINVAL and "ADD" in e.value.detail
    with pytest.raises(ValueError):
        tpu.Model.import_tflite(fix / "chain.tflite", kernels="ruy")


# ---------------------------------------------------------------- NCHW models (ONNX import)

def _pb(field, value):
    """One protobuf field: bytes/str length-delimited, int varint (enough for onnx.proto)."""
    def varint(v):
        out = b""
        while True:
            out += bytes([(v & 0x7F) | (0x80 if v > 0x7F else 0)])
            v >>= 7
            if not v:
                return out
    if isinstance(value, int):
        return varint(field << 3) + varint(value)
    value = value.encode() if isinstance(value, str) else value
    return varint(field << 3 | 2) + varint(len(value)) + value


def _maxpool_onnx(c, h, w, k):
    """A uint8 (N, c, h, w) input, MaxPool k x k stride 1, the uint8 output: onnx.proto written
    field by field (ModelProto 1 ir_version, 7 graph, 8 opset_import; GraphProto 1 node, 2
    name, 11 input, 12 output; NodeProto 1 input, 2 output, 4 op_type, 5 attribute;
    AttributeProto 1 name, 8 ints, 20 type; ValueInfoProto 1 name, 2 type; TypeProto 1
    tensor_type; Tensor 1 elem_type, 2 shape; TensorShapeProto 1 dim; Dimension 1 dim_value,
    2 dim_param)."""
    def value_info(name, dims):
        shape = b"".join(_pb(1, _pb(2, d) if isinstance(d, str) else _pb(1, d)) for d in dims)
        return _pb(1, name) + _pb(2, _pb(1, _pb(1, 2) + _pb(2, shape)))  # 2: UINT8
    attr = _pb(1, "kernel_shape") + _pb(8, k) + _pb(8, k) + _pb(20, 7)  # 7: INTS
    node = _pb(1, "x") + _pb(2, "y") + _pb(4, "MaxPool") + _pb(5, attr)
    graph = (_pb(1, node) + _pb(2, "pool") + _pb(11, value_info("x", ["N", c, h, w]))
             + _pb(12, value_info("y", ["N", c, h - k + 1, w - k + 1])))
    return _pb(1, 7) + _pb(7, graph) + _pb(8, _pb(2, 12))


def test_nchw_input_and_output(golden, rng, tmp_path):
    """An ONNX model takes and gives NCHW arrays: Model.run reorders them for the device (and
    back), as `tpu run` does; an NHWC-shaped array is refused."""
    c, h, w, k, b = 3, 4, 5, 2, 6
    path = tmp_path / "pool.onnx"
    path.write_bytes(_maxpool_onnx(c, h, w, k))
    with tpu.Model.import_onnx(path) as m:
        assert m.input_nchw and m.output_nchw
        assert m.input_shape == (h, w, c) and m.output_shape == (h - k + 1, w - k + 1, c)
        x = rng.integers(0, 256, size=(b, c, h, w)).astype(np.uint8)
        # the device's order is h, w, c; a uint8 value u is the int8 u - 128
        want_q = (x.transpose(0, 2, 3, 1).astype(np.int32) - 128).reshape(b, -1)
        assert np.array_equal(m.quantize(x), want_q)
        assert np.array_equal(m.quantize(x.reshape(b, -1)), want_q)
        want = np.full((b, c, h - k + 1, w - k + 1), -128, np.int32)
        for dy in range(k):
            for dx in range(k):
                want = np.maximum(want, x[:, :, dy:dy + h - k + 1, dx:dx + w - k + 1]
                                  .astype(np.int32) - 128)
        r = m.run(golden, x)
        assert r.outputs.shape == want.shape
        assert np.array_equal(r.outputs, want)
        assert np.array_equal(r.predictions, np.argmax(want.reshape(b, -1), axis=1))
        with pytest.raises(ValueError, match="NCHW, the model's input layout"):
            m.run(golden, np.ascontiguousarray(x.transpose(0, 2, 3, 1)))
        # tpu run on the same file and data gives the same (B, C, H, W) outputs
        m.save(tmp_path / "pool.tpum")
        np.save(tmp_path / "x.npy", x)
        run_cli("run", "--device", "golden", tmp_path / "pool.tpum", tmp_path / "x.npy",
                "--outputs", tmp_path / "out.npy")
        out = np.load(tmp_path / "out.npy")  # the uint8 output: the int8 values + 128
        assert out.dtype == np.uint8 and out.shape == want.shape
        assert np.array_equal(out.astype(np.int32) - 128, want)


def _matmulinteger_onnx(k, n, b, xz):
    """A uint8 (N, k) input, MatMulInteger by the int8 (k, n) initializer b with the uint8 input
    zero point xz, the int32 output (field numbers as _maxpool_onnx; TensorProto 1 dims, 2
    data_type, 8 name, 9 raw_data; GraphProto 5 initializer)."""
    def value_info(name, elem, dims):
        shape = b"".join(_pb(1, _pb(2, d) if isinstance(d, str) else _pb(1, d)) for d in dims)
        return _pb(1, name) + _pb(2, _pb(1, _pb(1, elem) + _pb(2, shape)))
    w = _pb(1, k) + _pb(1, n) + _pb(2, 3) + _pb(8, "b") + _pb(9, b.astype(np.int8).tobytes())
    z = _pb(2, 2) + _pb(8, "xz") + _pb(9, bytes([xz]))  # 3: INT8, 2: UINT8, 6: INT32
    node = _pb(1, "x") + _pb(1, "b") + _pb(1, "xz") + _pb(2, "y") + _pb(4, "MatMulInteger")
    graph = (_pb(1, node) + _pb(2, "mmi") + _pb(5, w) + _pb(5, z)
             + _pb(11, value_info("x", 2, ["N", k])) + _pb(12, value_info("y", 6, ["N", n])))
    return _pb(1, 7) + _pb(7, graph) + _pb(8, _pb(2, 13))


def test_int32_output(golden, rng, tmp_path):
    """An ONNX MatMulInteger imports to a model with an int32 output: Model.run returns the
    int32 sums (x - xz) . b that numpy computes, on golden and sim:n=8."""
    k, n, bsz, xz = 37, 11, 5, 131
    b = rng.integers(-128, 128, size=(k, n))
    path = tmp_path / "mmi.onnx"
    path.write_bytes(_matmulinteger_onnx(k, n, b, xz))
    with tpu.Model.import_onnx(path) as m:
        assert m.output_int32 and not m.output_nchw
        x = rng.integers(0, 256, size=(bsz, k)).astype(np.uint8)
        want = (x.astype(np.int64) - xz) @ b
        q = (x.astype(np.int16) - 128).astype(np.int8)  # the uint8 input in int8 form
        for uri in ("golden", "sim:n=8"):
            with tpu.Device(uri) as dev:
                r = m.run(dev, q, quantized=True)
            assert r.outputs.dtype == np.int32
            assert np.array_equal(r.outputs, want)
            assert np.array_equal(r.predictions, np.argmax(want, axis=1))
