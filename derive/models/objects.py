"""Live model objects: a ``torch.nn.Module`` or a Keras model, read from its configuration.

Framework modules are looked up in ``sys.modules`` (as einops does): nothing is imported just to
test a type. torch modules are read from their attributes (``input_size``, ``hidden_size``...),
not their weights, so meta-device models work; a module derive does not know is counted from its
own parameters and marked "numeric, not derived". Keras models are read from ``get_config()``.
"""

from __future__ import annotations

import sys
from typing import Any

from .base import remembered
from .keras_code import KerasProgram, _rows, _start
from .recurrent import TORCH_RECURRENT, TorchRecurrent
from .report import Report, Row
from .source import Call, SourceError, clean
from .torch_layers import TORCH_LAYERS

__all__ = ["explain_object", "explain_keras_config"]

_TORCH_ATTRS = {
    "Embedding": ("num_embeddings", "embedding_dim"),
    "Linear": ("in_features", "out_features"),
    "LayerNorm": ("normalized_shape",),
    "BatchNorm1d": ("num_features",),
    "Conv1d": ("in_channels", "out_channels", "kernel_size"),
}


def _torch_kind(cls: type) -> str | None:
    """The class name of a ``torch.nn`` module derive derives (``"LSTM"``, ``"Linear"``), else None."""
    kind = cls.__name__
    if cls.__module__.startswith("torch.nn") and (kind in TORCH_RECURRENT or kind in _TORCH_ATTRS):
        return kind
    return None


def _torch_arguments(kind: str, module: Any) -> tuple[list[Any], dict[str, Any]]:
    """The constructor arguments that remake ``module`` (a :func:`_torch_kind`), read from its attributes."""
    if kind in TORCH_RECURRENT:
        if kind.endswith("Cell"):
            return [module.input_size, module.hidden_size], {"bias": module.bias}
        kwargs: dict[str, Any] = {
            "num_layers": module.num_layers,
            "bias": module.bias,
            "batch_first": module.batch_first,
            "bidirectional": module.bidirectional,
        }
        if kind == "LSTM":
            kwargs["proj_size"] = module.proj_size
        if kind == "RNN":
            kwargs["nonlinearity"] = module.nonlinearity
        return [module.input_size, module.hidden_size], kwargs
    args = [getattr(module, a) for a in _TORCH_ATTRS[kind]]
    kwargs = {}
    if kind in ("Linear", "Conv1d"):
        kwargs["bias"] = module.bias is not None
    if kind == "Conv1d":
        kwargs["groups"] = module.groups
    if kind == "LayerNorm":
        kwargs["elementwise_affine"] = module.elementwise_affine
        kwargs["bias"] = module.bias is not None
    if kind == "BatchNorm1d":
        kwargs["affine"] = module.affine
    return args, kwargs


def _derived(kind: str, args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, Any, dict, Any, tuple]:
    """Count, closed form, letters' values, output shape and tensors of one module's configuration."""
    known = TorchRecurrent(kind, args, kwargs) if kind in TORCH_RECURRENT else TORCH_LAYERS[kind](*args, **kwargs)
    formula, values = known.formula
    return known.count, formula, values, known.output_shape(), tuple(known.shapes().items())


def _torch_row(name: str, module: Any, kind: str) -> Row:
    """The row of a module derive derives; the derivation is remembered per class and configuration.

    The key holds every argument :func:`_torch_arguments` reads, with its type, so two modules with
    equal keys are remade by the same call and have the same row (but for the name).
    """
    args, kwargs = _torch_arguments(kind, module)
    key = (
        "torch module",
        kind,
        tuple((type(a), a) for a in args),
        tuple((k, type(v), v) for k, v in kwargs.items()),
    )
    count, formula, values, output_shape, shapes = remembered(key, lambda: _derived(kind, args, kwargs))
    return Row(
        name or type(module).__name__,
        type(module).__name__,
        count,
        formula,
        dict(values),
        output_shape,
        "",
        [(f"{name}.{k}" if name else k, v) for k, v in shapes],
    )


def _explain_torch_object(model: Any) -> Report:
    rows = []
    for name, module in model.named_modules():
        cls = type(module)
        kind = _torch_kind(cls)
        if kind is not None:
            rows.append(_torch_row(name, module, kind))
            continue
        own = list(module.parameters(recurse=False))
        if list(module.children()):
            if own:
                rows.append(
                    Row(
                        name or cls.__name__,
                        cls.__name__,
                        sum(p.numel() for p in own),
                        note="numeric, not derived (its own parameters)",
                    )
                )
            continue
        rows.append(
            Row(
                name or cls.__name__,
                clean(cls.__name__, 60),
                sum(p.numel() for p in own),
                note="numeric, not derived" if own else "",
            )
        )
    return Report("torch", rows, f"{clean(type(model).__name__, 60)} (nn.Module)")


def explain_keras_config(config: dict) -> Report:
    """A Keras Sequential or functional model from its config (``model.get_config()``, ``config.json``).

    Parameters
    ----------
    config : dict
        ``{"class_name": "Sequential", "config": {"layers": [...]}}`` or the inner config; a
        functional config (``"class_name": "Functional"``, layers with ``inbound_nodes``) goes to
        :func:`derive.models.keras_functional.explain_functional_config`.

    Returns
    -------
    Report

    Raises
    ------
    SourceError
        Not a Sequential or functional config, unknown layers.
    """
    from .checkpoints import keras_config_calls

    inner = config.get("config", config) if isinstance(config, dict) else None
    if config.get("class_name") in ("Functional", "Model") or (
        isinstance(inner, dict)
        and isinstance(inner.get("layers"), list)
        and any(isinstance(layer, dict) and layer.get("inbound_nodes") for layer in inner["layers"])
    ):
        from .keras_functional import explain_functional_config

        return explain_functional_config(config)
    if (
        not isinstance(inner, dict)
        or not isinstance(inner.get("layers"), list)
        or (config.get("class_name") not in (None, "Sequential"))
    ):
        raise SourceError("only Sequential and functional Keras configs are read (not subclassed models)")
    program = KerasProgram()
    nodes = []
    shape = None
    for layer in inner["layers"]:
        call = keras_config_calls(layer)
        if call.name == "InputLayer":
            batch = call.kwargs.get("batch_shape") or call.kwargs.get("batch_input_shape")
            shape = tuple(batch[1:]) if batch else None
            continue
        _strip(call)
        nodes.append(program.node(call))
    if not nodes:
        raise SourceError("the Sequential config has no layers")
    build = inner.get("build_input_shape")
    shape = shape or (tuple(build[1:]) if isinstance(build, (list, tuple)) else None)
    shape = _start(nodes, shape, None, program.notes)
    current: Any = shape
    for node in nodes:
        current = program.build(node, current)
        current = current[0] if isinstance(current, list) else current
    return Report("keras", _rows(nodes, False), "Keras Sequential (config)", shape, program.notes)


_CONFIG_ONLY = {"dtype", "trainable", "seed", "time_major", "implementation", "zero_output_for_mask"}


def _strip(call: Call) -> None:
    """Drop config entries that are not constructor arguments of derive's classes."""
    from .keras_layers import KERAS_LAYERS

    cls = KERAS_LAYERS.get(call.name)
    import inspect

    from ..frameworks import keras as dk

    target = cls if cls is not None else getattr(dk, call.name, None)
    if target is None:
        return
    params = set(inspect.signature(target.__init__).parameters)
    allowed = params | set(getattr(target, "ALLOWED", ())) | {"name"}
    for key in list(call.kwargs):
        if key not in allowed or key in _CONFIG_ONLY:
            del call.kwargs[key]
    for value in list(call.kwargs.values()) + list(call.args):
        if isinstance(value, Call):
            _strip(value)
    if call.name in ("Bidirectional", "TimeDistributed") and isinstance(call.kwargs.get("layer"), Call):
        call.args = [call.kwargs.pop("layer")]


def explain_object(obj: Any) -> Report:
    """A live ``torch.nn.Module`` or Keras model/layer.

    Parameters
    ----------
    obj : torch.nn.Module or keras.Model or keras.layers.Layer

    Returns
    -------
    Report
        Total equal to ``sum(p.numel() for p in model.parameters())`` / ``model.count_params()``.

    Raises
    ------
    TypeError
        Anything else.
    """
    keras = sys.modules.get("keras")
    if keras is not None and isinstance(obj, keras.Model) and type(obj).__name__ == "Sequential":
        return explain_keras_config({"class_name": "Sequential", "config": obj.get_config()})
    if keras is not None and isinstance(obj, keras.Model) and type(obj).__name__ == "Functional":
        try:
            report = explain_keras_config({"class_name": "Functional", "config": obj.get_config()})
        except (SourceError, TypeError, ValueError) as error:
            reason = f"not derived ({clean(str(error), 160)}); numeric"
        else:
            if report.total == obj.count_params():
                return report
            reason = "derivation disagrees with count_params(); numeric"  # never hide Keras' own count
        numeric = _keras_numeric(obj)
        numeric.notes.append(reason)
        return numeric
    if keras is not None and isinstance(obj, keras.layers.Layer):
        return _keras_numeric(obj)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.nn.Module):
        return _explain_torch_object(obj)
    raise TypeError(
        f"explain() takes model code, a path, a state dict or a torch/Keras model; got {type(obj).__name__}"
    )


def _keras_numeric(obj: Any) -> Report:
    rows = [
        Row(
            layer.name,
            type(layer).__name__,
            layer.count_params() if layer.built else None,
            note="numeric, not derived",
        )
        for layer in getattr(obj, "layers", [obj])
    ]
    return Report("keras", rows, clean(type(obj).__name__, 60))
