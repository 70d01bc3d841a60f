"""A measured answer for a decoder type derive does not derive: transformers builds it and derive reads what it built.

For a ``model_type`` of transformers' ``MODEL_FOR_CAUSAL_LM_MAPPING_NAMES`` that no derive family builds, the
installed transformers builds the model itself — ``AutoConfig.for_model(model_type, **config)`` and
``AutoModelForCausalLM.from_config`` on ``torch.device("meta")`` (no weights, no Hub, no remote code:
``auto_map`` is never followed) — and derive reads the built ``nn.Module`` as it reads any live module
(:mod:`derive.read.live.pytorch`): every tensor as transformers names it, tied tensors once, buffers apart,
a dense model's active count its total.

The inference cache is measured too: meta-device forwards with ``use_cache=True`` (2 sequences of 1 token,
1 of 1, 1 of 2, and 1 of ``max_position_embeddings`` - 1 and ``max_position_embeddings`` tokens), every
tensor of the returned ``past_key_values`` read by its layer index and attribute. An axis that follows the
batch is the batch; one that grows a token a token is the tokens, capped where the two longest runs hold
the same (a sliding window); the rest are sizes. A tensor that fits none of that (a compressed or
chunked cache) leaves the cache unmeasured, said in the notes, and :func:`derive.cost` refuses it rather
than count it short (``"cache"`` in the root's :attr:`~derive.tree.Module.unknown`); a model that routes experts
has no active count (``"active"`` there), never its total in place of one.

Such an answer is ``"method": "measured"`` (a derived one says ``"derived"``): exact for the config given,
with no closed form. Without transformers (and torch) it is refused, saying what to install.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping
from typing import Any

from ..tree import Module, State

__all__ = [
    "is_measurable",
    "measured_tree",
    "explain_measured",
    "explain_config",
    "config_tree",
]

#: Config keys that say a model routes experts (a count above 1).
EXPERT_KEYS = ("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts", "num_routed_experts")


def _mapping() -> Mapping[str, str] | None:
    try:
        from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    except ImportError:
        return None
    return MODEL_FOR_CAUSAL_LM_MAPPING_NAMES


def is_measurable(model_type: Any) -> bool:
    """Whether the installed transformers builds ``model_type`` as a causal LM (False without transformers).

    Parameters
    ----------
    model_type : object
        A config's ``model_type``.

    Returns
    -------
    bool
    """
    names = _mapping()
    return isinstance(model_type, str) and names is not None and model_type in names


def refusal(model_type: Any, known: list[str]) -> str:
    """Why ``model_type`` gets no answer: not a causal LM of transformers, or transformers not installed.

    Parameters
    ----------
    model_type : object
    known : list of str
        The model types derive derives.

    Returns
    -------
    str
    """
    if _mapping() is None:
        return (
            f"model_type {model_type!r} is not one derive derives from a config, and transformers is not installed to "
            f"measure it (pip install torch transformers); derived: {known}"
        )
    return (
        f"model_type {model_type!r} is not one derive derives from a config, nor a causal LM of the installed "
        f"transformers' MODEL_FOR_CAUSAL_LM_MAPPING; derived: {known}"
    )


def _build(model_type: str, config: Mapping[str, Any]) -> tuple[Any, Any]:
    """(the model on the meta device, the config object transformers made of ``config``)."""
    import torch
    import transformers

    given = {k: v for k, v in config.items() if k not in ("model_type", "auto_map", "quantization_config")}
    try:
        cfg = transformers.AutoConfig.for_model(model_type, **given)
    except Exception as error:  # transformers' own check of a value: its words, the key in them
        raise ValueError(f"transformers refuses this {model_type!r} config: {type(error).__name__}: {error}") from None
    try:
        with torch.device("meta"):
            model = transformers.AutoModelForCausalLM.from_config(cfg)
    except Exception as error:
        raise ValueError(
            f"transformers could not build this {model_type!r} config: {type(error).__name__}: {error}"
        ) from None
    return model.eval(), cfg


def _cache_run(model: Any, batch: int, tokens: int) -> dict[tuple[int, str], tuple[tuple[int, ...], str]]:
    """(layer, attribute) -> (shape, dtype) of every tensor of the cache after a meta-device forward."""
    import torch

    ids = torch.zeros((batch, tokens), dtype=torch.long, device="meta")
    with torch.no_grad(), torch.device("meta"):  # whatever the forward makes is shapes only, at any length
        out = model(input_ids=ids, use_cache=True)
    cache = getattr(out, "past_key_values", None)
    layers = getattr(cache, "layers", None)
    if cache is None or layers is None:
        raise ValueError(f"its forward returned no transformers Cache with layers ({type(cache).__name__})")
    found: dict[tuple[int, str], tuple[tuple[int, ...], str]] = {}

    def walk(index: int, name: str, value: Any) -> None:
        if isinstance(value, torch.Tensor):
            found[(index, name)] = (tuple(value.shape), str(value.dtype).removeprefix("torch."))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(index, f"{name}.{key}", item)
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                walk(index, f"{name}.{i}", item)

    for index, layer in enumerate(layers):
        for name, value in vars(layer).items():
            walk(index, name, value)
    return found


def _states(model: Any, length: int) -> tuple[State, ...]:
    """The cache's tensors as :class:`~derive.tree.State` entries, each named ``layers.<i>.<attribute>``
    (a tensor with neither a batch nor a tokens axis, a layer's window as a scalar, is held once).

    Measured with the weights in bfloat16 and in float32: a state in the weights' dtype both times follows the
    model's dtype (``dtype`` None); one in the same dtype both times is kept in it (a float32 recurrent state).
    A model whose float32 forward stops (transformers' grouped expert matmul takes bfloat16 only) is measured
    in bfloat16 alone: a state in float32 there is kept in float32."""
    import torch

    half = _read_states(model.to(torch.bfloat16), length)
    try:
        full = {s.name: s.dtype for s in _read_states(model.to(torch.float32), length)}
    except RuntimeError:
        full = {}
    # in bfloat16 a state off the weights' dtype is kept in its own; one in bfloat16 there but not the weights'
    # dtype in float32 is kept in bfloat16; the rest follow the model's dtype
    return tuple(s if s.dtype is not None else dataclasses.replace(s, dtype=full.get(s.name)) for s in half)


def _read_states(model: Any, length: int) -> tuple[State, ...]:
    one = _cache_run(model, 1, 1)
    two_seq = _cache_run(model, 2, 1)
    two_tok = _cache_run(model, 1, 2)
    long1 = _cache_run(model, 1, length - 1)
    long2 = _cache_run(model, 1, length)
    if not (one.keys() == two_seq.keys() == two_tok.keys() == long1.keys() == long2.keys()):
        raise ValueError("its cache holds other tensors at other lengths")
    param_dtype = str(next(model.parameters()).dtype).removeprefix("torch.")
    states = []
    for (index, name), (shape, dtype) in one.items():
        rows = [shape, two_seq[(index, name)][0], two_tok[(index, name)][0], long1[(index, name)][0]]
        last = long2[(index, name)][0]
        if len({len(r) for r in (*rows, last)}) != 1:
            raise ValueError(f"layer {index}'s {name!r} changes rank with the length")
        axes: list[Any] = []
        window = None
        for axis, size in enumerate(shape):
            b2, t2, l1, l2 = rows[1][axis], rows[2][axis], rows[3][axis], last[axis]
            if b2 == 2 * size and t2 == size and l2 == l1 and axis == 0:
                axes.append("batch")
            elif b2 == size and size == 1 and t2 == 2 and l1 == length - 1 and l2 == length:
                axes.append("tokens")
            elif b2 == size and size == 1 and t2 == 2 and l2 == l1 and l1 < length - 1:
                axes.append("tokens")  # capped: the layer keeps its last l1 tokens
                window = l1
            elif b2 == size == t2 == l1 == l2:
                axes.append(size)
            else:
                raise ValueError(
                    f"layer {index}'s {name!r} has an axis that is neither the batch, the tokens, nor a size "
                    f"({shape}, {rows[1]}, {rows[2]}, {rows[3]}, {last})"
                )
        if axes.count("batch") > 1 or axes.count("tokens") > 1 or ("tokens" in axes and "batch" not in axes):
            raise ValueError(f"layer {index}'s {name!r} has more than one batch or tokens axis ({shape})")
        states.append(State(f"layers.{index}.{name}", tuple(axes), None if dtype == param_dtype else dtype, window))
    return tuple(states)


@functools.cache
def _measured(model_type: str, frozen: str) -> tuple[Any, Module, tuple[State, ...] | None, str]:
    config = json.loads(frozen)
    model, cfg = _build(model_type, config)
    from .live.pytorch import torch_tree

    tree = _towers(model, cfg, torch_tree(model))
    length = config.get("max_position_embeddings")
    if not (isinstance(length, int) and not isinstance(length, bool) and length >= 4):
        length = 32768
    try:
        states: tuple[State, ...] | None = _states(model, length)
        why = ""
    except Exception as error:  # a cache derive cannot read as batch x tokens x sizes: said, never guessed
        states, why = None, f"{type(error).__name__}: {error}"
    return model, tree, states, why


#: Sub-configs of a multimodal config whose tower the causal-LM class may leave out.
TOWERS = ("vision_config", "audio_config", "speech_config")


def _towers(model: Any, config: Any, tree: Module) -> Module:
    """The tree with a not-counted part for each tower the config describes and the built class leaves out
    (``MllamaForCausalLM`` builds Llama 3.2 Vision's language model alone): the total is then partial."""
    from ..families.decoder import not_built_tower

    names = [name.lower() for name, _ in model.named_parameters()]
    missing = []
    for key in TOWERS:
        if getattr(config, key, None) is None:
            continue
        kind = key.removesuffix("_config")
        if any(kind in n or (kind == "vision" and "visual" in n) for n in names):
            continue
        missing.append(not_built_tower(key, type(model).__name__))
    return tree.replace(children=tree.children + tuple(missing)) if missing else tree


def _frozen(config: Mapping[str, Any]) -> str:
    try:
        return json.dumps(config, sort_keys=True)
    except (TypeError, ValueError) as error:
        raise ValueError(f"the config is not JSON data: {error}") from None


def measured_tree(model_type: str, config: Mapping[str, Any]) -> Module:
    """The tree of the model transformers builds from ``config``, its measured cache on the root.

    Parameters
    ----------
    model_type : str
        A causal-LM model type of the installed transformers (:func:`is_measurable`).
    config : mapping
        The config's keys (``model_type`` may be among them).

    Returns
    -------
    derive.tree.Module
        The live reader's tree of the meta-device model; its :attr:`~derive.tree.Module.cache` holds every
        cache tensor measured. Where it could not be, the root's :attr:`~derive.tree.Module.unknown` holds
        ``"cache"`` (its note says why) and the cache is empty; ``"active"`` where the model routes experts.

    Raises
    ------
    ValueError
        transformers refuses the config or cannot build it (its own message).
    """
    model, tree, states, why = _measured(model_type, _frozen(config))
    unknown = ({"cache"} if states is None else set()) | ({"active"} if _routes_experts(model) else set())
    if unknown:
        tree = tree.replace(
            unknown=frozenset(unknown), note=f"cache not measured ({why})" if states is None else tree.note
        )
    return tree if states is None else _attach(tree, states)


def _routes_experts(model: Any) -> bool:
    """Whether the built model routes experts: a config count of experts above 1, or a module named experts."""
    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    for key in EXPERT_KEYS:
        value = getattr(config, key, None)
        if isinstance(value, int) and value > 1:
            return True
    return any(
        name.rsplit(".", 1)[-1] == "experts" or "Experts" in type(m).__name__ for name, m in model.named_modules()
    )


def _strip(module: Module) -> Module:
    """The tree without the caches the live reader derived for the blocks it knows: the measured cache replaces them."""
    return module.replace(cache=(), children=tuple(_strip(c) for c in module.children))


def _attach(tree: Module, states: tuple[State, ...]) -> Module:
    """Each cache layer's states on the decoder layer of its index (the module list named ``layers`` whose
    copies are as many as the cache's layers; a run of identical copies keeps its states once, as each copy
    keeps its own), named by attribute; on the root when no such list is found."""
    by_layer: dict[int, tuple[State, ...]] = {}
    for state in states:
        _, index, name = state.name.split(".", 2)
        by_layer[int(index)] = (*by_layer.get(int(index), ()), dataclasses.replace(state, name=name))

    def copies(child: Module) -> list[int] | None:
        if type(child.repeat) is not int:
            return None
        if child.repeat == 1 and "{k}" not in child.name:
            return [int(child.name)] if child.name.isdigit() else None
        return list(range(child.start, child.start + child.repeat)) if child.name == "{k}" else None

    def placed(module: Module) -> Module | None:
        runs = [copies(c) for c in module.children]
        if module.name == "layers" and module.children and all(r is not None for r in runs):
            if sorted(i for r in runs for i in r or ()) == sorted(by_layer):
                children: list[Module] = []
                for child, run in zip(module.children, runs, strict=True):
                    kept = {by_layer[i] for i in run or ()}
                    if len(kept) == 1:
                        children.append(child.replace(cache=child.cache + kept.pop()))
                    else:  # copies that keep different caches: one module each
                        children += [
                            child.replace(name=str(i), repeat=1, start=0, cache=child.cache + by_layer[i])
                            for i in run or ()
                        ]
                return module.replace(children=tuple(children))
        for i, child in enumerate(module.children):
            done = placed(child)
            if done is not None:
                return module.replace(children=(*module.children[:i], done, *module.children[i + 1 :]))
        return None

    tree = _strip(tree)
    return placed(tree) or tree.replace(cache=states)


def explain_measured(model_type: str, config: Mapping[str, Any]) -> Any:
    """The report of the model transformers builds from ``config``: ``method`` ``"measured"``.

    Parameters
    ----------
    model_type : str
    config : mapping

    Returns
    -------
    derive.read.report.Report

    Raises
    ------
    ValueError
        As :func:`measured_tree`.
    """
    from .report import Report

    model, _, states, why = _measured(model_type, _frozen(config))
    tree = measured_tree(model_type, config)
    notes = [
        f"measured, not derived: derive has no family for {model_type!r}, so the installed transformers built "
        f"{type(model).__name__} from this config on the meta device and derive read what it built (exact for this "
        "config; no closed form)",
    ]
    if "auto_map" in config:
        notes.append("auto_map (remote code) is not followed: the model is transformers' own class for its model_type")
    if states is None:
        notes.append(f"the cache is not measured: {why}")
    if "active" in tree.unknown:
        notes.append(
            "the active count is not measured: the model routes experts, and which of them a token visits is not "
            "read off the built module (the total counts every expert)"
        )
    from .live.blocks import unshown_notes

    notes += unshown_notes(tree)
    report = Report.from_module(
        tree, "transformers", title=f"{type(model).__name__} from a {model_type!r} config (measured)", notes=notes
    )
    report.method = "measured"
    return report


def explain_config(obj: Any) -> Any:
    """A config's report: derived by its family (:func:`derive.read.configs.pretrained.explain_config`), or
    measured where derive has none and the installed transformers builds its model type as a causal LM.

    Parameters
    ----------
    obj : str, os.PathLike, Mapping or config object
        As :func:`derive.read.configs.pretrained.explain_config` takes it.

    Returns
    -------
    derive.read.report.Report

    Raises
    ------
    ValueError
        A model type neither derived nor measurable (saying which), a key or value refused (named), or
        transformers' own refusal of the config.
    """
    from .configs.pretrained import UnknownModelType
    from .configs.pretrained import explain_config as derived

    try:
        return derived(obj)
    except UnknownModelType as error:
        if not is_measurable(error.model_type):
            from ..blocks import CONFIG_MODELS

            raise ValueError(refusal(error.model_type, sorted(CONFIG_MODELS))) from None
        return explain_measured(error.model_type, error.config)


def config_tree(config: Mapping[str, Any]) -> Module:
    """The tree of the model a config mapping builds: its family's (derived), or measured where derive has none
    and the installed transformers builds its model type as a causal LM. The one decision of the two, for
    :func:`derive.cost` as for :func:`explain_config`.

    Parameters
    ----------
    config : mapping
        A transformers config's keys, ``model_type`` among them (its ``quantization_config`` is not read here).

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A model type neither derived nor measurable (saying which), a key or value refused (named), or
        transformers' own refusal of the config.
    """
    from ..blocks import CONFIG_MODELS, config_model

    model_type: Any = config.get("model_type")
    rest = {k: v for k, v in config.items() if k not in ("model_type", "quantization_config")}
    try:
        entry = config_model(model_type)
    except ValueError:
        if not is_measurable(model_type):
            raise ValueError(refusal(model_type, sorted(CONFIG_MODELS))) from None
        return measured_tree(model_type, rest)
    return entry.build(rest)
