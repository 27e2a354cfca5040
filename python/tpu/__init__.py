"""tpu: the tpu accelerator from Python, over libtpu.so through ctypes (docs/python.md).

    import numpy as np, tpu
    with tpu.Device("golden:n=16") as dev:
        c = dev.matmul(a, b)                       # int8 x int8 -> int32
    model = tpu.Model.load("models/digits-mlp.tpum")
    result = model.run(dev, x)                     # .outputs, .predictions, .stats
"""
from ._lib import HAVE_SIM
from .device import Device
from .errors import TpuError
from .model import Model, RunResult
from .train import Optimizer, TrainContext, relu, relu_backward, softmax_xent

__all__ = ["Device", "HAVE_SIM", "Model", "Optimizer", "RunResult", "TpuError",
           "TrainContext", "relu", "relu_backward", "softmax_xent"]
