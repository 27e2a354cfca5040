"""Building TFLite models with the flatbuffers Python builder through the maintained generated
code of the pinned LiteRT (ai_edge_litert.schema_py_generated, its object API), and running
them in LiteRT with a chosen op resolver. Used by litert_check.py and export_digits.py."""
import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as S
from ai_edge_litert.interpreter import Interpreter, OpResolverType

T = S.TensorType
OP = S.BuiltinOperator
OPT = S.BuiltinOptions
ACT = S.ActivationFunctionType

# the kernel sets of `tpu import --kernels` and the LiteRT op resolver each reproduces
RESOLVER = {"reference": OpResolverType.BUILTIN_REF, "xnnpack": OpResolverType.BUILTIN}


class Model:
    """A one-subgraph model under construction; tensors are indices."""

    def __init__(self, name="main"):
        self.name = name
        self.tensors, self.buffers, self.codes, self.ops = [], [S.BufferT()], [], []

    def tensor(self, shape, ttype, scale=None, zp=None, qdim=0, data=None, name=None):
        t = S.TensorT()
        t.shape = [int(d) for d in shape]
        t.type = ttype
        t.name = name or f"t{len(self.tensors)}"
        t.buffer = 0
        if data is not None:
            b = S.BufferT()
            b.data = np.frombuffer(np.ascontiguousarray(data).tobytes(), np.uint8)
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        if scale is not None:
            q = S.QuantizationParametersT()
            q.scale = [float(s) for s in np.atleast_1d(np.asarray(scale, np.float32))]
            q.zeroPoint = [int(z) for z in np.atleast_1d(zp)]
            q.quantizedDimension = qdim
            t.quantization = q
        self.tensors.append(t)
        return len(self.tensors) - 1

    def op(self, code, ins, outs, opt_type=0, opt=None):
        known = [c.builtinCode for c in self.codes]
        if code not in known:
            c = S.OperatorCodeT()
            c.builtinCode = code
            c.deprecatedBuiltinCode = min(code, 127)
            c.version = 1
            self.codes.append(c)
            known.append(code)
        o = S.OperatorT()
        o.opcodeIndex = known.index(code)
        o.inputs, o.outputs = list(ins), list(outs)
        o.builtinOptionsType, o.builtinOptions = opt_type, opt
        self.ops.append(o)

    def finish(self, ins, outs):
        g = S.SubGraphT()
        g.tensors, g.inputs, g.outputs, g.operators, g.name = (
            self.tensors, list(ins), list(outs), self.ops, self.name)
        m = S.ModelT()
        m.version, m.operatorCodes, m.subgraphs, m.buffers = 3, self.codes, [g], self.buffers
        m.description = "tpu tests"
        b = flatbuffers.Builder(1024)
        b.Finish(m.Pack(b), file_identifier=b"TFL3")
        return bytes(b.Output())


def conv_options(padding, stride, act, dilation=1):
    o = S.Conv2DOptionsT()
    o.padding, o.strideW, o.strideH, o.fusedActivationFunction = padding, stride, stride, act
    o.dilationWFactor = o.dilationHFactor = dilation
    return o


def depthwise_options(padding, stride, mult, act, dilation=1):
    o = S.DepthwiseConv2DOptionsT()
    o.padding, o.strideW, o.strideH = padding, stride, stride
    o.depthMultiplier, o.fusedActivationFunction = mult, act
    o.dilationWFactor = o.dilationHFactor = dilation
    return o


def pool_options(padding, k, stride, act=0):
    o = S.Pool2DOptionsT()
    o.padding, o.filterWidth, o.filterHeight, o.strideW, o.strideH = padding, k, k, stride, stride
    o.fusedActivationFunction = act
    return o


def fc_options(act):
    o = S.FullyConnectedOptionsT()
    o.fusedActivationFunction = act
    return o


def reshape_options(shape):
    o = S.ReshapeOptionsT()
    o.newShape = list(shape)
    return o


def run(model, x, resolver):
    """The model's output on x (its first dimension the batch) with the given op resolver."""
    it = Interpreter(model_content=model, experimental_op_resolver_type=resolver)
    inp = it.get_input_details()[0]
    it.resize_tensor_input(inp["index"], x.shape)
    it.allocate_tensors()
    it.set_tensor(inp["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])
