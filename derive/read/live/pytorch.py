"""A live ``torch.nn.Module`` read into the module tree: every parameter once, buffers marked.

The tensors are the object's own (``_parameters`` and ``_buffers`` of each submodule, in
``named_modules()`` order), so the total is always ``sum(p.numel() for p in model.parameters())``:
a Parameter object met a second time is a tie (:attr:`derive.tree.Param.tied_to`, counted once,
as ``parameters()`` counts it); a buffer (``running_mean``, ``num_batches_tracked``) is listed,
never counted. A module derive knows — the recurrent ones through the :mod:`derive.torch`
mirror, ``Linear``, ``Embedding``, convolutions and norms through :mod:`derive.layers`, any
constructor registered with a ``read`` (:mod:`derive.engine.constructors`) — is also derived
from its configuration (read from its attributes, never its weights, so meta-device models
work) and gets a closed form, built only when asked; every other module is counted from its own
tensors ("numeric, not derived") and its children are read in turn. A live object is never
refused for a module derive does not know.

>>> import torch
>>> tree = torch_tree(torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3)))
>>> count(tree), [name for name, _ in named_buffers(tree)]
(21, ['1.running_mean', '1.running_var', '1.num_batches_tracked'])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...engine import constructors
from ...layers.conv import conv
from ...layers.embedding import embedding
from ...layers.linear import linear
from ...layers.norm import batch_norm, group_norm, layer_norm, rms_norm
from ...tree import Formula, Module, Param, closed_form, count, named_buffers, named_parameters
from ..source import clean
from ..torch_recurrent import TORCH_RECURRENT, recurrent_module
from .blocks import live_block

__all__ = ["torch_tree", "KNOWN", "NUMERIC"]

#: The note of a module counted from its own tensors.
NUMERIC = "numeric, not derived"

_Read = Callable[[Any], tuple[dict[str, Any], dict[str, str]]]


def _linear(m: Any) -> tuple[dict[str, Any], dict[str, str]]:
    return {"in_features": m.in_features, "out_features": m.out_features, "bias": m.bias is not None}, {
        "in_features": "I",
        "out_features": "O",
    }


def _embedding(m: Any) -> tuple[dict[str, Any], dict[str, str]]:
    return {"num_embeddings": m.num_embeddings, "embedding_dim": m.embedding_dim}, {
        "num_embeddings": "V",
        "embedding_dim": "E",
    }


def _conv(m: Any) -> tuple[dict[str, Any], dict[str, str]]:
    kernel = tuple(m.kernel_size)
    config = {
        "in_channels": m.in_channels,
        "out_channels": m.out_channels,
        "kernel_size": kernel,
        "groups": m.groups,
        "bias": m.bias is not None,
        "transposed": bool(m.transposed),
        "type": type(m).__name__,
    }
    return config, {"in_channels": "C", "out_channels": "F"}


def _normalized(m: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """``normalized_shape`` as ``features`` (the letter N) when it is one size, else as ``shape``."""
    shape = tuple(m.normalized_shape)
    return ({"features": shape[0]}, {"features": "N"}) if len(shape) == 1 else ({"shape": shape}, {})


def _layer_norm(m: Any) -> tuple[dict[str, Any], dict[str, str]]:
    config, letters = _normalized(m)
    affine = bool(m.elementwise_affine)
    return {**config, "weight": affine, "bias": affine and getattr(m, "bias", None) is not None}, letters


def _rms_norm(m: Any) -> tuple[dict[str, Any], dict[str, str]]:
    config, letters = _normalized(m)
    return {**config, "weight": bool(m.elementwise_affine)}, letters


def _norm(make: Callable[..., Module]) -> Callable[..., Module]:
    def made(shape: tuple = (), features: Any = None, **kwargs: Any) -> Module:
        return make(shape or (features,), **kwargs)

    return made


def _batch_norm(m: Any) -> tuple[dict[str, Any], dict[str, str]]:
    return {
        "num_features": m.num_features,
        "affine": bool(m.affine),
        "track_running_stats": bool(m.track_running_stats),
        "type": type(m).__name__,
    }, {"num_features": "C"}


def _group_norm(m: Any) -> tuple[dict[str, Any], dict[str, str]]:
    return {"num_groups": m.num_groups, "num_channels": m.num_channels, "affine": bool(m.affine)}, {"num_channels": "C"}


def _conv_make(**config: Any) -> Module:
    return conv(
        config["in_channels"],
        config["out_channels"],
        config["kernel_size"],
        groups=config["groups"],
        bias=config["bias"],
        transposed=config["transposed"],
        type=config["type"],
    )


def _norm_make(**config: Any) -> Module:
    return batch_norm(**config)


_NORMS = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d")
_CONVS = ("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")

#: ``torch.nn`` class name -> (read the configuration off a live module, make its tree node).
KNOWN: dict[str, tuple[_Read, Callable[..., Module]]] = {
    "Linear": (_linear, linear),
    "Embedding": (_embedding, embedding),
    "LayerNorm": (_layer_norm, _norm(layer_norm)),
    "RMSNorm": (_rms_norm, _norm(rms_norm)),
    "GroupNorm": (_group_norm, group_norm),
    **dict.fromkeys(_CONVS, (_conv, _conv_make)),
    **dict.fromkeys(_NORMS, (_batch_norm, _norm_make)),
}


def _recurrent_config(kind: str, m: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if kind.endswith("Cell"):
        kwargs: dict[str, Any] = {"bias": m.bias}
        if kind == "RNNCell":
            kwargs["nonlinearity"] = m.nonlinearity
        return (m.input_size, m.hidden_size), kwargs
    kwargs = {
        "num_layers": m.num_layers,
        "bias": m.bias,
        "batch_first": m.batch_first,
        "bidirectional": m.bidirectional,
    }
    if kind == "LSTM":
        kwargs["proj_size"] = m.proj_size
    if kind == "RNN":
        kwargs["nonlinearity"] = m.nonlinearity
    return (m.input_size, m.hidden_size), kwargs


def _with_letters(make: Callable[..., Module], lettered: tuple[tuple[str, str], ...], **config: Any) -> Module:
    """``make(**config)`` with each argument of ``lettered`` replaced by its letter (a SymPy symbol)."""
    from ...engine.symbols import size_symbols

    symbols = size_symbols(" ".join(letter for _, letter in lettered))
    config.update({argument: symbol for (argument, _), symbol in zip(lettered, symbols)})
    return make(**config)


def _formula(make: Callable[..., Module], config: dict[str, Any], letters: dict[str, str]) -> Formula | None:
    """The closed form of ``make(**config)``: built, when read, with each int size in ``letters`` as its letter."""
    lettered = tuple((k, letter) for k, letter in letters.items() if type(config.get(k)) is int)
    if not lettered:
        return None
    values = tuple((letter, config[k]) for k, letter in lettered)
    return Formula(_with_letters, (make, lettered), tuple(config.items()), values)


def _registered(module: Any, kind: str) -> Module | None:
    """The node a constructor registered for torch with a ``read`` makes of ``module``, or None."""
    registered = constructors.lookup("torch", kind)
    if registered is None or registered.read is None:
        return None
    if registered.module_types and type(module).__module__ not in registered.module_types:
        return None
    args, kwargs = registered.read(module)
    made = registered.make(*args, **kwargs)
    return made if isinstance(made, Module) else None


#: What a derivation gives a live module: its parameters' shapes by name, config, closed form, output shape.
_Derived = tuple[dict[str, tuple], Any, Formula | None, Any]


def _summary(made: Module) -> _Derived:
    shapes = {n: tuple(p.shape) for n, p in named_parameters(made)}
    return shapes, made.config, made.formula, made.output_shape


def _known(kind: str, module: Any) -> _Derived:
    read, make = KNOWN[kind]
    config, letters = read(module)
    key = ("live torch", kind, tuple((k, type(v), v) for k, v in config.items()))

    def derive() -> _Derived:
        made = make(**config)
        return {n: tuple(p.shape) for n, p in named_parameters(made)}, config, _formula(make, config, letters), None

    return closed_form(key, derive)


def _derived(module: Any) -> _Derived | None:
    """What ``module``'s configuration gives (tensors named as torch names them), or None.

    Remembered per class and configuration (a 1,000-layer model derives each kind of layer once).
    """
    cls = type(module)
    kind = cls.__name__
    if cls.__module__.startswith("torch.nn."):
        if kind in TORCH_RECURRENT:
            args, kwargs = _recurrent_config(kind, module)
            key = (
                "live torch",
                kind,
                tuple((type(a), a) for a in args),
                tuple((k, type(v), v) for k, v in kwargs.items()),
            )
            return closed_form(key, lambda: _summary(recurrent_module(kind, args, kwargs)))
        if kind in KNOWN:
            return _known(kind, module)
    made = _registered(module, kind)
    return None if made is None else _summary(made)


class _Reader:
    """One walk over a live module: Parameters met before are ties."""

    def __init__(self) -> None:
        self.seen: dict[int, str] = {}

    def own(self, module: Any, path: str) -> tuple[Param, ...]:
        params = []
        for name, p in module._parameters.items():
            if p is None:
                continue
            full = f"{path}.{name}" if path else name
            tied = self.seen.setdefault(id(p), full)
            dtype = _dtype(p.dtype)
            params.append(
                Param(
                    name,
                    tuple(p.shape),
                    p.requires_grad,
                    False,
                    None if tied == full else tied,
                    dtype,
                    dtype.startswith("complex"),
                )
            )
        for name, b in module._buffers.items():
            if b is not None:
                params.append(Param(name, tuple(b.shape), buffer=True, dtype=_dtype(b.dtype)))
        return tuple(params)

    def read(self, module: Any, name: str, path: str, depth: int = 0) -> Module:
        if depth > 200:
            raise ValueError(f"{clean(path, 80)}: modules nested more than 200 deep")
        cls = type(module)
        if _uninitialized(module):  # a Lazy* module before its first forward: no shapes yet
            note = "not initialized (a lazy module before its first forward): not counted"
            return Module(name, clean(cls.__name__, 60), counted=False, note=note)
        # --- third-party blocks and pretrained models, derived whole (derive.read.live.blocks) ---
        block = live_block(module, name, path, self.seen)
        if isinstance(block, Module):
            return block
        # ---
        params = self.own(module, path)
        try:
            derived = _derived(module)
        except (TypeError, ValueError, AttributeError):  # a torch.nn subclass with other arguments
            derived = None
        kind = clean(cls.__name__, 60)
        tied = "; ".join(f"{p.name} is {p.tied_to} (counted there)" for p in params if p.tied_to is not None)
        if derived is not None and not module._modules and derived[0] == _shapes(params):
            # the live tensors (ties, dtypes, buffers), the derivation's closed form; with a tie the
            # closed form (every tensor) is not the row's count
            _, config, formula, output = derived
            return Module(
                name, kind, params, config=config, formula=None if tied else formula, note=tied, output_shape=output
            )
        children = tuple(
            self.read(child, key, f"{path}.{key}" if path else key, depth + 1)
            for key, child in module._modules.items()
            if child is not None
        )
        counted = [p for p in params if not p.buffer]
        note = NUMERIC if counted else ""
        if derived is not None and counted:
            note = f"{NUMERIC} (its tensors are not those of {kind}'s arguments)"
        if tied:
            note = f"{note}; {tied}" if note else tied
        if block:  # why the block derivation was not used
            note = f"{note}; {block}" if note else block
        return Module(name, kind, params, children, note=note)


def _uninitialized(module: Any) -> bool:
    """Whether ``module`` holds a parameter or buffer whose shape is not known yet (``nn.LazyLinear``)."""
    tensors = [*module._parameters.values(), *module._buffers.values()]
    return any(type(t).__name__.startswith("Uninitialized") for t in tensors if t is not None)


def _shapes(params: tuple[Param, ...]) -> dict[str, tuple]:
    """The live module's parameters (not its buffers): name -> shape."""
    return {p.name: p.shape for p in params if not p.buffer}


def _dtype(dtype: Any) -> str:
    name = _DTYPES.get(dtype)
    if name is None:
        name = _DTYPES[dtype] = str(dtype).removeprefix("torch.")
    return name


_DTYPES: dict[Any, str] = {}


def torch_tree(model: Any) -> Module:
    """The tree of a live ``torch.nn.Module`` (named as ``named_parameters()``; the root's name is "").

    Parameters
    ----------
    model : torch.nn.Module

    Returns
    -------
    derive.tree.Module
        :func:`derive.tree.count` equal to ``sum(p.numel() for p in model.parameters())``.

    Raises
    ------
    ValueError
        Modules nested more than 200 deep.
    """
    return _Reader().read(model, "", "")


__all__ += ["count", "named_buffers"]
