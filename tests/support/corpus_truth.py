"""The answers of the real frameworks to the corpus's questions (not a test module).

Each question of ``docs_src/corpus/questions.toml`` says in its ``truth`` table how its answer is
built: :func:`build` builds it in the real framework — torch and transformers on the meta device,
Keras 3 (``KERAS_BACKEND=torch``) in this process, Keras 2 and TF 1 in TensorFlow's worker
(``tf_worker.py``), MXNet in ``.venv-mxnet``, mamba_ssm in ``.venv-ssm``, the other frameworks through
the runners of ``cli_frameworks.py`` — and returns a :class:`Truth`: the parameters as the framework
lists them, the object itself where the question hands derive a live object, and the framework's
own error where it refuses. Nothing here reads derive.
"""

from __future__ import annotations

import os
import re
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("KERAS_HOME", tempfile.mkdtemp(prefix="keras-home-"))

# Imports Paddle (with JAX, Flax, Equinox) while this module is collected, before Keras 3 loads
# TensorFlow: Paddle imported after TensorFlow crashes the interpreter (see cli_frameworks.py).
import cli_frameworks

#: (name, shape) of one counted parameter, as the framework names it.
Row = tuple[str, tuple[int, ...]]


@dataclass
class Truth:
    """A framework's answer: its parameters (``rows``, each shared tensor once) and their total;
    ``obj`` the built object (torch module, Keras model) for questions about a live object;
    ``error`` the framework's own message where it refuses (or, for a checkpoint's error, raises);
    ``sides`` the checkpoint's and the model's modules (or configs) of a ``load_state_dict`` error;
    ``cited`` what derive must say where no package of the framework can run here (a pattern; the
    truth's ``source`` cites the file that defines it)."""

    rows: list[Row] = field(default_factory=list)
    total: int = 0
    obj: Any = None
    error: str = ""
    sides: tuple[Any, Any] | None = None
    cited: str = ""


def _torch_rows(module: Any) -> list[Row]:
    return [(name, tuple(p.shape)) for name, p in module.named_parameters()]


def _torch(truth: dict, meta: bool = True) -> Any:
    """The object ``truth["code"]`` leaves in ``model`` (torch and nn bound), on the meta device."""
    import torch
    from torch import nn

    scope: dict[str, Any] = {"torch": torch, "nn": nn}
    if meta:
        with torch.device("meta"):
            exec(truth["code"], scope)
    else:
        exec(truth["code"], scope)
    return scope["model"]


def at(prefix: str, module: Any) -> Any:
    """``module`` inside empty containers so that its parameters are named ``<prefix>.<name>``."""
    from torch import nn

    if not prefix:
        return module
    root = nn.Module()
    parent = root
    *outer, last = prefix.split(".")
    for part in outer:
        child = nn.Module()
        parent.add_module(part, child)
        parent = child
    parent.add_module(last, module)
    return root


def torch_truth(truth: dict) -> Truth:
    module = _torch(truth)
    return Truth(_torch_rows(module), sum(p.numel() for p in module.parameters()), module)


def write_torch_file(truth: dict, directory: Path, name: str) -> Path:
    """The file a question hands derive: the module's state dict saved by torch (``.pt``) or by
    safetensors, or the module exported to ONNX by ``torch.onnx.export`` (``truth["export"]``: the
    shapes of its example inputs)."""
    import torch

    module = at(truth.get("at", ""), _torch(truth, meta=False))
    path = directory / name
    if "export" in truth:
        inputs = tuple(torch.zeros(shape) for shape in truth["export"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(module.eval(), inputs, str(path), dynamo=False)
    elif truth["save"] == ".safetensors":
        from safetensors.torch import save_file

        save_file(module.state_dict(), str(path))
    else:
        torch.save(module.state_dict(), str(path))
    return path


def onnx_rows(path: Path) -> list[Row]:
    """The initializers of an ONNX file (its weights), as ``onnx`` reads them."""
    import onnx

    graph = onnx.load(str(path)).graph
    return [(i.name, tuple(i.dims)) for i in graph.initializer]


def torch_error(truth: dict) -> Truth:
    """``load_state_dict`` of the checkpoint's module into the model's, both at ``truth["at"]``:
    torch's own error message, and the two modules."""
    from torch import nn

    def build(text: str) -> Any:
        return at(truth["at"], eval(text, {"nn": nn}))

    checkpoint, model = build(truth["checkpoint"]), build(truth["model"])
    try:
        model.load_state_dict(checkpoint.state_dict())
    except RuntimeError as error:
        return Truth(error=str(error), sides=(checkpoint, model))
    raise RuntimeError("torch loaded the checkpoint: the question's error does not arise")


def transformers_error(truth: dict) -> Truth:
    """``load_state_dict`` of a transformers model built from ``truth["checkpoint"]``'s config into one
    built from ``truth["model"]``'s (both on the meta device): torch's message, and the two configs."""
    import hf_live

    checkpoint = hf_live.build(truth["model_type"], truth["checkpoint"])
    model = hf_live.build(truth["model_type"], truth["model"])
    try:
        model.load_state_dict(checkpoint.state_dict())
    except RuntimeError as error:
        return Truth(error=str(error), sides=(checkpoint.config, model.config))
    raise RuntimeError("transformers loaded the checkpoint: the question's error does not arise")


def cited(truth: dict) -> Truth:
    """No package of the framework runs here: what derive must say, from the cited source."""
    return Truth(cited=truth["expect"])


def keys_truth(truth: dict) -> Truth:
    """The parameter names of one block of a transformers model (``truth["module"]``, built on the meta
    device from ``truth["config"]``): the keys that block's architecture has, and the name derive
    must give it (``truth["expect"]``)."""
    import hf_live

    block = hf_live.build(truth["model_type"], truth.get("config", {})).get_submodule(truth["module"])
    return Truth(_torch_rows(block), sum(p.numel() for p in block.parameters()), block, cited=truth["expect"])


def _keras_rows(model: Any) -> list[Row]:
    seen, rows = set(), []
    for w in model.weights:
        if id(w) not in seen:
            seen.add(id(w))
            rows.append((w.path, tuple(w.shape)))
    return rows


def keras_truth(truth: dict) -> Truth:
    """The model ``truth["code"]`` leaves in ``model`` (Keras 3, ``keras`` bound)."""
    import keras

    scope: dict[str, Any] = {"keras": keras}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(truth["code"], scope)
    model = scope["model"]
    return Truth(_keras_rows(model), model.count_params(), model)


def keras_error(truth: dict) -> Truth:
    """Keras 3's own refusal of ``truth["code"]`` (a ValueError)."""
    import keras

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(truth["code"], {"keras": keras})
    except ValueError as error:
        return Truth(error=str(error))
    raise RuntimeError("Keras built the model: the question's error does not arise")


def _worker_rows(rows: list) -> list[Row]:
    return [(name, tuple(shape)) for name, shape, *_ in rows]


def keras2_truth(truth: dict) -> Truth:
    from frameworks_live_extra import tf_request

    rows = _worker_rows(tf_request({"kind": "keras2_code", "code": truth["code"]}))
    return Truth(rows, total_of(rows))


def tf1_truth(truth: dict) -> Truth:
    from frameworks_live_extra import tf_request

    request = {"kind": "tf1_code", "code": truth["code"], "input_size": truth["input_size"]}
    rows = _worker_rows(tf_request(request))
    return Truth(rows, total_of(rows))


def mxnet_truth(truth: dict) -> Truth:
    rows = [(n, s) for n, s, _ in cli_frameworks.mxnet_run(truth["text"], truth["input_size"])]
    return Truth(rows, total_of(rows))


def runner_truth(truth: dict) -> Truth:
    rows = [(n, s) for n, s, _ in cli_frameworks.RUNNERS[truth["framework"]](truth["text"], truth.get("input_dim"))]
    return Truth(rows, total_of(rows))


def linen_truth(truth: dict) -> Truth:
    """A Flax linen module that reads a whole sequence (``nn.RNN``, ``nn.Bidirectional``), initialised on
    zeros of shape (batch, time, ``truth["input_dim"]``) under ``jax.eval_shape``: its ``params`` as
    Flax names them (the flax.linen runner of ``cli_frameworks.py`` applies a cell to one step)."""
    import flax.linen as nn
    import jax
    import jax.numpy as jnp

    module = eval(truth["text"], {"nn": nn, "linen": nn, "jax": jax, "jnp": jnp})
    x = jnp.zeros((cli_frameworks.BATCH, 5, truth["input_dim"]))
    variables = jax.eval_shape(lambda: module.init(jax.random.key(0), x))
    rows = [(n, s) for n, s, _ in cli_frameworks._jax_names(variables["params"])]
    return Truth(rows, total_of(rows))


def transformers_truth(truth: dict) -> Truth:
    import hf_live

    model = hf_live.build(truth["model_type"], truth["config"])
    return Truth(hf_live.tensors(model), hf_live.total(model), model)


def mamba_truth(truth: dict) -> Truth:
    from mamba_live import live

    request = {"kind": "lm", "config": truth["lm"]} if "lm" in truth else {"kind": "text", "text": truth["text"]}
    answer = live(request)
    return Truth([(n, tuple(s)) for n, s in answer["tensors"]], answer["total"])


def xlstm_truth(truth: dict) -> Truth:
    """xlstm's ``xLSTMLMModel`` of the config, on the meta device (the sLSTM's "vanilla" backend: the
    same parameters as its CUDA kernel's, which a CPU cannot compile)."""
    import torch
    from xlstm import mLSTMBlockConfig, mLSTMLayerConfig, sLSTMBlockConfig, sLSTMLayerConfig
    from xlstm.xlstm_lm_model import xLSTMLMModel, xLSTMLMModelConfig

    config = xLSTMLMModelConfig(
        vocab_size=truth["vocab_size"],
        num_blocks=truth["num_blocks"],
        embedding_dim=truth["embedding_dim"],
        mlstm_block=mLSTMBlockConfig(mlstm=mLSTMLayerConfig(num_heads=truth["num_heads"])),
        slstm_block=sLSTMBlockConfig(slstm=sLSTMLayerConfig(num_heads=truth["num_heads"], backend="vanilla")),
        slstm_at=truth["slstm_at"],
        context_length=truth["context_length"],
    )
    with torch.device("meta"):
        model = xLSTMLMModel(config)
    return Truth(_torch_rows(model), sum(p.numel() for p in model.parameters()), model)


def total_of(rows: list[Row]) -> int:
    """The number of parameters of ``rows``."""
    total = 0
    for _, shape in rows:
        size = 1
        for d in shape:
            size *= d
        total += size
    return total


BUILDERS = {
    "torch": torch_truth,
    "torch_error": torch_error,
    "transformers_error": transformers_error,
    "cited": cited,
    "keys": keys_truth,
    "keras": keras_truth,
    "keras_error": keras_error,
    "keras2": keras2_truth,
    "tf1": tf1_truth,
    "mxnet": mxnet_truth,
    "runner": runner_truth,
    "linen": linen_truth,
    "transformers": transformers_truth,
    "mamba_ssm": mamba_truth,
    "xlstm": xlstm_truth,
}

#: Truth kinds answered in a subprocess worker of another framework (TensorFlow's, MXNet's).
WORKER_KINDS = frozenset({"keras2", "tf1", "mxnet"})


def build(truth: dict) -> Truth:
    """The real framework's answer to one question (see the module's docstring)."""
    return BUILDERS[truth["kind"]](truth)


def torch_arguments(module: Any) -> dict[str, Any]:
    """The constructor arguments of a torch recurrent module, as its attributes hold them."""
    kind = type(module).__name__.removesuffix("Cell")
    return {
        "mode": kind,
        "input_size": module.input_size,
        "hidden_size": module.hidden_size,
        "num_layers": getattr(module, "num_layers", 1),
        "bidirectional": getattr(module, "bidirectional", False),
        "proj_size": getattr(module, "proj_size", 0),
        "bias": module.bias,
    }


def error_lines(text: str) -> list[str]:
    """The size-mismatch sentences of a ``load_state_dict`` error, one per line, whitespace normalised."""
    return [" ".join(m.group(0).split()) for m in re.finditer(r"size mismatch for [^\n]*?\]\)\.?(?= |$|\n)", text)]
