"""The training ops from Python (tpu.TrainContext, tpu.Optimizer, relu, softmax_xent) against
NumPy references, within docs/training.md's bound where the device computes; and a short MLP
training loop on the digits data that learns, bit for bit the same on the Verilated bf16
device as on golden."""
import numpy as np
import pytest

import tpu
from conftest import ROOT, sim_uri
from test_matmul import error_bound, floats


@pytest.fixture(params=["golden:bf16=1", "golden:bf16=1,n=4"])
def ctx(request):
    with tpu.Device(request.param) as d, tpu.TrainContext(d) as c:
        yield c


def assert_within_bound(got, a, b, bias=None):
    exact = a.astype(np.float64) @ b.astype(np.float64)
    if bias is not None:
        exact = exact + bias
    assert np.all(np.abs(got - exact) <= error_bound(a, b, bias))


@pytest.mark.parametrize("batch,n_in,n_out", [(1, 1, 1), (32, 64, 10), (7, 33, 17)])
def test_dense_forward_and_backward(ctx, rng, batch, n_in, n_out):
    x, w, b = floats(rng, batch, n_in), floats(rng, n_in, n_out), floats(rng, n_out)
    assert_within_bound(ctx.dense_forward(x, w, b), x, w, b)
    dy = floats(rng, batch, n_out)
    dw, db, dx = ctx.dense_backward(x, w, dy)
    assert_within_bound(dw, x.T, dy)
    assert_within_bound(dx, dy, w.T)
    np.testing.assert_allclose(db, dy.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)
    assert ctx.dense_backward(x, w, dy, need_dx=False)[2] is None
    assert ctx.stats["gemms"] == 4 and ctx.stats["macs"] > 0


def test_gemm_transposes_equal_explicit_copies(ctx, rng):
    a, b = floats(rng, 12, 30), floats(rng, 30, 9)
    want = ctx.gemm(a, b)
    for ta in (False, True):
        for tb in (False, True):
            got = ctx.gemm(a.T.copy() if ta else a, b.T.copy() if tb else b, trans_a=ta,
                           trans_b=tb)
            np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    with pytest.raises(ValueError, match="^b: shape"):
        ctx.gemm(a, b, trans_b=True)


def test_relu_and_softmax_xent(rng):
    y = floats(rng, 4, 6)
    np.testing.assert_array_equal(tpu.relu(y), np.maximum(y, 0))
    dy = floats(rng, 4, 6)
    np.testing.assert_array_equal(tpu.relu_backward(tpu.relu(y), dy), np.where(y > 0, dy, 0))
    logits, labels = floats(rng, 5, 10) / 100, rng.integers(0, 10, 5)
    loss, dlogits = tpu.softmax_xent(logits, labels)
    z = logits.astype(np.float64)
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    assert abs(loss - np.mean(-np.log(p[np.arange(5), labels]))) < 1e-6
    np.testing.assert_allclose(dlogits, (p - np.eye(10)[labels]) / 5, atol=1e-7)
    with pytest.raises(ValueError, match="^labels: values"):
        tpu.softmax_xent(logits, labels + 10)
    with pytest.raises(tpu.TpuError, match="softmax_xent"):
        tpu.softmax_xent(np.full((1, 3), np.inf, np.float32), [0])


def test_optimizers_follow_their_formulas(rng):
    p0, g = floats(rng, 50), floats(rng, 50)
    p = p0.copy()
    sgd = tpu.Optimizer("sgd", 50, weight_decay=0.01)
    sgd.step(p, g, 0.1)
    want = p0.astype(np.float64) - 0.1 * (g + 0.01 * p0.astype(np.float64))
    np.testing.assert_allclose(p, want, rtol=1e-6)
    adam = tpu.Optimizer("adamw", 50)
    p = p0.copy()
    adam.step(p, g, 0.01)
    # the first AdamW step moves each weight by lr * g / (|g| + eps)
    np.testing.assert_allclose(p, p0 - 0.01 * np.sign(g), rtol=1e-5, atol=1e-6)
    assert adam.steps == 1
    with pytest.raises(ValueError, match="^param:"):
        adam.step(p[:10], g, 0.01)
    with pytest.raises(ValueError, match="^kind:"):
        tpu.Optimizer("lion", 5)


def train_mlp(uri, steps, batch=32, hidden=32, seed=1):
    """docs/python.md's loop: an MLP 64-hidden-10 with AdamW on the digits test split.
    Returns the losses and the final weights."""
    x = np.load(ROOT / "data" / "digits_test_x.npy").reshape(-1, 64).astype(np.float32) / 16
    y = np.load(ROOT / "data" / "digits_test_y.npy")
    rng = np.random.default_rng(seed)
    sizes = [(64, hidden), (hidden, 10)]
    params = np.concatenate([np.concatenate([rng.standard_normal(i * o) * np.sqrt(2 / i),
                                             np.zeros(o)]) for i, o in sizes]).astype(np.float32)
    views, at = [], 0
    for i, o in sizes:  # (w, b) of each layer: views into the one parameter vector
        views.append((params[at:at + i * o].reshape(i, o), params[at + i * o:at + i * o + o]))
        at += i * o + o
    grads = np.empty_like(params)
    opt = tpu.Optimizer("adamw", params.size, weight_decay=1e-4)
    losses = []
    with tpu.Device(uri) as dev, tpu.TrainContext(dev) as ctx:
        for step in range(steps):
            idx = rng.choice(len(x), batch, replace=False)
            acts = [x[idx]]
            for li, (w, b) in enumerate(views):
                out = ctx.dense_forward(acts[-1], w, b)
                acts.append(tpu.relu(out) if li < len(views) - 1 else out)
            loss, d = tpu.softmax_xent(acts[-1], y[idx])
            losses.append(loss)
            at = grads.size
            for li in reversed(range(len(views))):
                w, b = views[li]
                if li < len(views) - 1:
                    d = tpu.relu_backward(acts[li + 1], d)
                dw, db, d = ctx.dense_backward(acts[li], w, d, need_dx=li > 0)
                at -= w.size + b.size
                grads[at:at + w.size], grads[at + w.size:at + w.size + b.size] = dw.ravel(), db
            opt.step(params, grads, 1e-2)
    return np.array(losses), params


def test_training_loop_learns():
    losses, _ = train_mlp("golden:bf16=1", steps=40)
    assert losses[-5:].mean() < 0.5 * losses[:5].mean()


@pytest.mark.parametrize("uri", [sim_uri("b8")])
def test_training_loop_same_bits_on_sim(uri):
    want = train_mlp("golden:bf16=1,n=8,stream=0", steps=2)
    got = train_mlp(uri, steps=2)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1].view(np.uint32), want[1].view(np.uint32))
