"""The real object of a constructor line as its users write it (not a test module).

:data:`RUNNERS` maps a framework key to a function ``run(text, input_dim)`` that evaluates the
*same text* the command line is given, in the real package (test code, trusted text), applies the
object to an input of ``input_dim`` features where the framework makes its weights then, and
returns ``[(name, shape, trainable)]`` as the package names them — or raises the package's own
exception. MXNet and TF 1 run in their subprocess workers (``mxnet_worker.py``, ``tf_worker.py``);
cuDNN, which needs a GPU, by torch's layers of the same sizes (:func:`cudnn_run`).

The blocks: mamba_ssm and flash-linear-attention evaluate the line in ``.venv-ssm``
(``mamba_worker.py``, ``fla_worker.py``); transformers' configs build their model on the meta
device here. The reference code of S4/S4D, S5 and the LRU is no package: their lines are evaluated
with the transcriptions of ``ssm_reference.py`` (each of the declaring lines, cited there) in their
place. :data:`CITED` lists the frameworks held by neither, with the reason.
"""

from __future__ import annotations

import os
import warnings

os.environ.setdefault("JAX_PLATFORMS", "cpu")

# Imports Paddle (with JAX, Flax, Equinox, ONNX) while this module is collected: Paddle imported
# after TensorFlow is loaded in the process (Keras 3 loads it when it builds a layer) crashes
# the interpreter (a segmentation fault in paddle/base/core.py).
import frameworks_live  # noqa: F401

BATCH = 2


def _jax_names(tree) -> list[tuple[str, tuple, bool]]:
    import jax
    from frameworks_live import _path

    leaves = jax.tree_util.tree_flatten_with_path(tree)[0]
    return [("/".join(_path(p)), tuple(leaf.shape), True) for p, leaf in leaves]


def haiku_run(text: str, input_dim: int):
    import haiku as hk
    import jax
    import jax.numpy as jnp

    def forward():
        core = eval(text, {"hk": hk, "haiku": hk, "jnp": jnp, "jax": jax})
        spatial = tuple(getattr(core, "input_shape", ()))
        x = jnp.zeros((BATCH, *spatial, input_dim))
        return core(x, core.initial_state(BATCH))[0]

    params = hk.transform(forward).init(jax.random.PRNGKey(0))
    return [(f"{module}/{name}", tuple(v.shape), True) for module, d in params.items() for name, v in d.items()]


def mlx_run(text: str, input_dim: int | None):
    import mlx
    import mlx.core as mx
    import mlx.nn as nn
    from mlx.utils import tree_flatten

    layer = eval(text, {"mlx": mlx, "nn": nn})
    first = layer.layers[0] if isinstance(layer, nn.Sequential) else layer  # a Sequential reads its first's input
    width = first.Wx.shape[-1] if hasattr(first, "Wx") else first.Wxh.shape[-1]
    layer(mx.zeros((BATCH, 3, width)))
    return [(k, tuple(v.shape), True) for k, v in tree_flatten(layer.parameters())]


def linen_run(text: str, input_dim: int):
    import flax
    import flax.linen as nn
    import jax
    import jax.numpy as jnp

    module = eval(text, {"flax": flax, "nn": nn, "linen": nn, "jax": jax, "jnp": jnp})
    cell = module  # nn.RNN(cell) holds it as .cell, nn.Bidirectional as .forward_rnn.cell, nn.Sequential in .layers
    while not isinstance(cell, nn.RNNCellBase):
        if hasattr(cell, "layers"):
            cell = next(layer for layer in cell.layers if isinstance(layer, nn.Module))
        else:
            cell = cell.cell if hasattr(cell, "cell") else cell.forward_rnn
    spatial = (5,) * len(cell.kernel_size) if hasattr(cell, "kernel_size") else ()
    key = jax.random.key(0)
    if module is not cell:  # a cell over a sequence: applied to (batch, time, ..., features)
        x = jnp.zeros((BATCH, 4, *spatial, input_dim))
        return _jax_names(jax.eval_shape(lambda: module.init(key, x))["params"])
    x = jnp.zeros((BATCH, *spatial, input_dim))
    variables = jax.eval_shape(lambda: cell.init(key, cell.initialize_carry(key, x.shape), x))
    return _jax_names(variables["params"])


def nnx_run(text: str, input_dim: int | None):
    import flax
    import jax
    from flax import nnx

    module = nnx.eval_shape(lambda: eval(text, {"flax": flax, "nnx": nnx, "jax": jax}))
    return _jax_names(nnx.state(module, nnx.Param))


def equinox_run(text: str, input_dim: int | None):
    import equinox as eqx
    import jax

    tree = eqx.filter_eval_shape(lambda: eval(text, {"eqx": eqx, "equinox": eqx, "jax": jax}))
    leaves = jax.tree_util.tree_flatten_with_path(tree)[0]
    return [(jax.tree_util.keystr(p).lstrip("."), tuple(leaf.shape), True) for p, leaf in leaves]


def paddle_run(text: str, input_dim: int | None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import paddle

    module = eval(text, {"paddle": paddle, "nn": paddle.nn})
    layered = any(k[0].isdigit() for k in module.state_dict())
    items = [(k, v) for k, v in module.state_dict().items() if k[0].isdigit()] if layered else module.named_parameters()
    return [(k, tuple(v.shape), not v.stop_gradient) for k, v in items]


def _torch_rows(module) -> list[tuple[str, tuple, bool]]:
    return [(name, tuple(p.shape), p.requires_grad) for name, p in module.named_parameters()]


def sru_run(text: str, input_dim: int | None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import sru

        return _torch_rows(eval(text, {"sru": sru, "SRU": sru.SRU, "SRUCell": sru.SRUCell}))


def mingru_run(text: str, input_dim: int | None):
    import minGRU_pytorch
    from minGRU_pytorch import minGRU
    from minGRU_pytorch.minLSTM import minLSTM

    return _torch_rows(eval(text, {"minGRU_pytorch": minGRU_pytorch, "minGRU": minGRU, "minLSTM": minLSTM}))


def xlstm_run(text: str, input_dim: int | None):
    import xlstm

    names = {n: getattr(xlstm, n) for n in ("sLSTMLayer", "sLSTMLayerConfig", "mLSTMLayer", "mLSTMLayerConfig")}
    return _torch_rows(eval(text, {"xlstm": xlstm, **names}))


def mxnet_run(text: str, input_dim: int | None):
    from frameworks_live_extra import mxnet_python, worker_request

    python = mxnet_python()
    assert python, ".venv-mxnet is missing: run scripts/bootstrap --test"
    rows = worker_request("mxnet", python, {"text": text, "input_size": input_dim})
    return [(name, tuple(shape), trainable) for name, shape, trainable in rows]


def _torch_buffer(mode: str, i: int, h: int, layers: int, bidirectional: bool, skip_input: bool = False) -> int:
    """cuDNN's weight buffer in floats, as torch holds it: ``nn.LSTM``/``GRU``/``RNN`` of the same sizes
    (on CUDA their tensors are views of cuDNN's buffer); CUDNN_SKIP_INPUT without layer 0's
    ``weight_ih``/``bias_ih`` (both directions), which cuDNN does not allocate."""
    import torch
    from torch import nn

    cls = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn_tanh": nn.RNN, "rnn_relu": nn.RNN}[mode]
    options = {"nonlinearity": mode[4:]} if mode.startswith("rnn_") else {}
    with torch.device("meta"):
        layer = cls(i, h, layers, bidirectional=bidirectional, **options)
    skipped = ("weight_ih_l0", "bias_ih_l0", "weight_ih_l0_reverse", "bias_ih_l0_reverse") if skip_input else ()
    return sum(p.numel() for name, p in layer.named_parameters() if name not in skipped)


def cudnn_run(text: str, input_dim: int | None):
    """No GPU here (cuDNN does not run): the line evaluated with its classes standing for what they
    configure — TF 1's ``tf.contrib.cudnn_rnn.Cudnn*`` (cudnn_rnn.py ``_CudnnRNN.__init__``: its
    checks of ``direction`` and ``input_mode``; ``build``: one ``<name>/opaque_kernel``) and
    cudnn.torch's ``cudnn.*`` (RNN.lua: one ``weight``; Lua's ``true``/``false``/``nil``) — and the
    buffer's length counted on torch's layers (:func:`_torch_buffer`)."""
    import re
    import types

    def tf_class(cls: str, mode: str):
        def init(
            num_layers,
            num_units,
            input_mode="linear_input",
            direction="unidirectional",
            dropout=0.0,
            seed=None,
            dtype=None,
            kernel_initializer=None,
            bias_initializer=None,
            name=None,
        ):
            if direction not in ("unidirectional", "bidirectional"):
                raise ValueError(f"Invalid direction: {direction}")
            if input_mode not in ("linear_input", "skip_input", "auto_select"):
                raise ValueError(f"Invalid input_mode: {input_mode}")
            skip = input_mode == "skip_input" or (input_mode == "auto_select" and input_dim == num_units)
            if skip and input_dim != num_units:
                raise ValueError("skip_input needs input_size == num_units (cudnnGetRNNParamsSize refuses it)")
            size = _torch_buffer(mode, input_dim, num_units, num_layers, direction == "bidirectional", skip)
            scope = name or re.sub("([a-z])([A-Z])", r"\1_\2", re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", cls)).lower()
            return [(f"{scope}/opaque_kernel", (size,), True)]

        return init

    def lua_class(mode: str, bidirectional: bool):
        def init(inputSize, hiddenSize, numLayers, batchFirst=None, dropout=None, rememberStates=None):
            assert input_dim is None, "cudnn.torch takes inputSize as an argument"
            return [("weight", (_torch_buffer(mode, inputSize, hiddenSize, numLayers, bidirectional),), True)]

        return init

    tf_classes = {"CudnnLSTM": "lstm", "CudnnGRU": "gru", "CudnnRNNTanh": "rnn_tanh", "CudnnRNNRelu": "rnn_relu"}
    cudnn_rnn = types.SimpleNamespace(**{c: tf_class(c, m) for c, m in tf_classes.items()})
    lua = {
        "LSTM": ("lstm", False),
        "BLSTM": ("lstm", True),
        "GRU": ("gru", False),
        "BGRU": ("gru", True),
        "RNNTanh": ("rnn_tanh", False),
        "RNNReLU": ("rnn_relu", False),
        "RNN": ("rnn_relu", False),
    }
    scope = {
        "tf": types.SimpleNamespace(contrib=types.SimpleNamespace(cudnn_rnn=cudnn_rnn)),
        "cudnn": types.SimpleNamespace(**{c: lua_class(*v) for c, v in lua.items()}),
        "true": True,
        "false": False,
        "nil": None,  # Lua's
        **vars(cudnn_rnn),
    }
    return eval(text, scope)


def tf1_run(text: str, input_dim: int):
    from frameworks_live_extra import tf_request

    rows = tf_request({"kind": "tf1_text", "text": text, "input_size": input_dim})
    return [(name, tuple(shape), trainable) for name, shape, trainable in rows]


def _worker_rows(name: str, text: str) -> list[tuple[str, tuple, bool]]:
    from frameworks_live_extra import worker_request
    from mamba_live import ssm_python

    python = ssm_python()
    assert python, ".venv-ssm is missing: run scripts/bootstrap --test"
    got = worker_request(name, python, {"kind": "text", "text": text})
    return [(n, tuple(shape), True) for n, shape in got.get("tensors", got.get("parameters", []))]


def mamba_ssm_run(text: str, input_dim: int | None):
    """mamba-ssm 2.3.2.post1, built on the meta device in ``.venv-ssm``."""
    return _worker_rows("mamba", text)


def fla_run(text: str, input_dim: int | None):
    """flash-linear-attention 0.6.0 in ``.venv-ssm``: a layer on the CPU, a config's model on the meta device."""
    return _worker_rows("fla", text)


def transformers_run(text: str, input_dim: int | None):
    """``AutoModelForCausalLM.from_config`` of the config the line makes, on the meta device."""
    import torch
    import transformers

    names = {"transformers": transformers}
    names.update({n: getattr(transformers, n) for n in TRANSFORMERS_CONFIGS})
    config = eval(text, names)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(config)
    return _torch_rows(model)


#: The config classes of the transformers models derive builds (``derive.blocks.register_config``).
TRANSFORMERS_CONFIGS = ("MambaConfig", "FalconMambaConfig", "Mamba2Config", "RwkvConfig", "RecurrentGemmaConfig")


def s4_run(text: str, input_dim: int | None):
    """state-spaces/s4 (e757cef): S4D, S4Block, FFTConv as transcribed in ``ssm_reference.py``, on the meta device."""
    import types

    import ssm_reference as ref
    import torch

    names = {"S4D": ref.S4D, "S4Block": ref.S4Block, "FFTConv": ref.FFTConv}
    names.update(
        s4d=types.SimpleNamespace(S4D=ref.S4D), s4=types.SimpleNamespace(S4Block=ref.S4Block, FFTConv=ref.FFTConv)
    )
    with torch.device("meta"):
        return _torch_rows(eval(text, names))


def _captured(text: str, name: str, signature, scope: dict) -> dict:
    """The arguments of the line's call of ``name`` bound to ``signature`` (a def with the reference's
    own), defaults applied; ``scope`` binds the other names of the line (``"{name}"`` stands for the call)."""
    import inspect
    import types

    calls = []

    def capture(*args, **kwargs):
        calls.append(inspect.signature(signature).bind(*args, **kwargs))

    def bind(value):
        if value == "{name}":
            return capture
        if isinstance(value, dict):
            return types.SimpleNamespace(**{k: bind(v) for k, v in value.items()})
        return value

    eval(text, {k: bind(v) for k, v in scope.items()})
    bound = calls[0]
    bound.apply_defaults()
    return dict(bound.arguments)


def _s5ssm(Lambda_re_init, Lambda_im_init, V, Vinv, H, P, C_init, discretization, dt_min, dt_max,
           conj_sym=True, clip_eigs=False, bidirectional=False, step_rescale=1.0):  # fmt: skip
    """lindermanlab/S5 ``s5/ssm.py`` 91-108: S5SSM's fields."""


def s5_run(text: str, input_dim: int | None):
    """lindermanlab/S5 (3c18fdb): ``S5SSM`` as transcribed in ``ssm_reference.py`` (Flax, ``jax.eval_shape``),
    its eigenvalues and eigenvectors sized as ``s5/train.py`` sizes them for ``P``."""
    import jax.numpy as jnp
    import ssm_reference as ref

    arrays = dict.fromkeys(("Lambda_re", "Lambda_im", "V", "Vinv"))  # sized below, from P
    a = _captured(text, "S5SSM", _s5ssm, {"S5SSM": "{name}", "ssm": {"S5SSM": "{name}"}, **arrays})
    local = 2 * a["P"] if a["conj_sym"] else a["P"]
    V = jnp.zeros((local, a["P"]), dtype=jnp.complex64)
    ssm = ref.S5SSM(jnp.zeros(a["P"]), jnp.zeros(a["P"]), V, V.conj().T, a["H"], a["P"], a["C_init"],
                    a["conj_sym"], a["bidirectional"])  # fmt: skip
    return [(k, v, True) for k, v in ref.flax_tensors(ssm, jnp.zeros((3, a["H"])))["params"].items()]


def _lru(d_hidden, d_model, r_min=0.0, r_max=1.0, max_phase=6.28):
    """NicolasZucchet/minimal-LRU ``lru/model.py`` 38-47: LRU's fields."""


def lru_run(text: str, input_dim: int | None):
    """NicolasZucchet/minimal-LRU (bbd71b1): ``LRU`` as transcribed in ``ssm_reference.py`` (Flax)."""
    import jax.numpy as jnp
    import ssm_reference as ref

    a = _captured(text, "LRU", _lru, {"LRU": "{name}", "model": {"LRU": "{name}"}, "lru": {"model": {"LRU": "{name}"}}})
    lru = ref.LRU(a["d_hidden"], a["d_model"])
    return [(k, v, True) for k, v in ref.flax_tensors(lru, jnp.zeros((3, a["d_model"])))["params"].items()]


#: framework key -> run(text, input_dim) -> [(name, shape, trainable)] of the real object.
RUNNERS = {
    "haiku": haiku_run,
    "mlx": mlx_run,
    "flax.linen": linen_run,
    "flax.nnx": nnx_run,
    "equinox": equinox_run,
    "paddle": paddle_run,
    "sru": sru_run,
    "mingru": mingru_run,
    "xlstm": xlstm_run,
    "mxnet": mxnet_run,
    "cudnn": cudnn_run,
    "tf1": tf1_run,
    "mamba_ssm": mamba_ssm_run,
    "fla": fla_run,
    "transformers": transformers_run,
    "s4": s4_run,
    "s5": s5_run,
    "lru": lru_run,
}

#: Frameworks whose constructors no test can evaluate here, with the reason: held by citation
#: (file and lines in each constructor's ``source``), listed rather than skipped.
CITED = {
    "recurrentgemma": "google-deepmind/recurrentgemma: its PyPI package (recurrentgemma 1.0.1) pins numpy<2.4 and "
    "absl-py<2, which the test environment cannot take, and no transcription of it is kept; its layers are "
    "transformers' RecurrentGemma layers in DeepMind's names (tests/blocks/test_griffin.py holds the model "
    "against transformers)",
}

#: Frameworks whose parameters are a dict of dicts with no order of their own (JAX's tree flattening
#: sorts the keys): compared as sets of (name, shape, trainable).
UNORDERED = ("flax.linen", "flax.nnx", "s5", "lru")

#: Frameworks whose runner is a subprocess worker (slow to start).
WORKERS = ("mxnet", "tf1", "mamba_ssm", "fla")
