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
