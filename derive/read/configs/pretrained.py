"""Pretrained models from their configs: ``config.json`` in, the model its library builds out.

:func:`explain_config` takes a transformers config — a path to its ``config.json``, its JSON text,
a dict with a ``"model_type"``, or a live ``PretrainedConfig`` — or mamba_ssm's (the format of the
state-spaces/mamba-* checkpoints: ``d_model``, ``n_layer``, ``ssm_cfg``, no ``model_type``; a dict,
its file or a live ``mamba_ssm`` ``MambaConfig``), and returns the :class:`~derive.read.report.Report`
of the model ``AutoModelForCausalLM.from_config(config)`` (``MambaLMHeadModel(config)``) builds:
every tensor named as the library names it, the total counting a tied tensor once (as
``model.parameters()``), one row per part — embeddings, the layers (one row for all the identical
copies; where the layers are built one by one, as RecurrentGemma's pattern of recurrent and
attention blocks, one row per kind of layer: ``model.layers (RecurrentBlock ×18)``), the final
norm, the head — each with its closed form in the config's own keys as SymPy
symbols (``num_hidden_layers`` too), derived only when asked. (The report is made with
:class:`~derive.read.report.Report` and these rows rather than ``Report.from_module``, whose rows
list every copy of a repeated layer; ``total``, ``tensors`` and ``partial`` come from the tree alike.)

A Keras model serialized as JSON (``model.to_json()``: ``class_name`` and ``config``, the format of
a ``.keras`` archive's ``config.json``) is read as the ``.keras`` file's config is
(:func:`derive.read.configs.keras_functional.explain_keras_config`).

The builders are registered per ``model_type`` by the block modules
(:func:`derive.blocks.register_config`); absent keys take the config class's defaults, and a key or
value a builder cannot map is refused naming it.

>>> report = explain_config({"model_type": "mamba", "vocab_size": 50280, "hidden_size": 768, "num_hidden_layers": 24})
>>> report.total   # state-spaces/mamba-130m, as its maintainer counts it (mamba#48)
129135360
>>> [row.name for row in report.rows]
['backbone.embeddings', 'backbone.layers.{k}', 'backbone.norm_f', 'lm_head']
>>> report.rows[2].formula, report.rows[2].values
(hidden_size, {'hidden_size': 768})
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...tree import Formula, Letter, Module, count, letters_to_symbols, named_modules, named_parameters
from ..limits import MAX_CONFIG_BYTES
from ..report import Report, Row, show
from ..source import SourceError, clean

__all__ = ["is_config", "is_json_text", "load", "explain_config", "UnknownModelType", "MAX_CONFIG_BYTES"]


def _is_json_path(obj: Any) -> bool:
    if isinstance(obj, os.PathLike):
        obj = os.fspath(obj)
    return isinstance(obj, str) and "\n" not in obj and len(obj) < 4096 and obj.lower().endswith(".json")


def _is_mamba_ssm(data: Mapping[str, Any]) -> bool:
    return "model_type" not in data and "d_model" in data and ("n_layer" in data or "ssm_cfg" in data)


def _is_live(obj: Any) -> bool:
    names = {c.__name__ for c in type(obj).__mro__}
    if {"PreTrainedConfig", "PretrainedConfig"} & names and type(obj).__module__.startswith("transformers"):
        return True
    return type(obj).__module__ == "mamba_ssm.models.config_mamba" and dataclasses.is_dataclass(obj)


def is_json_text(text: str) -> bool:
    """Whether pasted text is JSON of an object, a config as copied out of a ``config.json`` (the one
    rule of the command line and :func:`derive.explain`: such text is read as a config, and refused
    as one when it is not JSON or names no model type, never read as code).

    Parameters
    ----------
    text : str

    Returns
    -------
    bool
        The text's first character other than white space is ``{``.

    Examples
    --------
    >>> is_json_text('  {"model_type": "mamba"}'), is_json_text("nn.LSTM(8, 16)")
    (True, False)
    """
    return text.lstrip().startswith("{")


def is_config(obj: Any) -> bool:
    """Whether :func:`explain_config` reads ``obj`` (cheap: no file is opened, nothing imported).

    Parameters
    ----------
    obj : Any

    Returns
    -------
    bool
        A ``.json`` path, JSON text of an object, a mapping with a string ``"model_type"``, in
        mamba_ssm's format (``d_model`` with ``n_layer`` or ``ssm_cfg``) or a Keras model's
        (``class_name`` and ``config``), or a live config.

    Examples
    --------
    >>> is_config("config.json"), is_config({"model_type": "mamba"}), is_config({"weight_ih_l0": (4, 3)})
    (True, True, False)
    """
    if _is_json_path(obj):
        return True
    if isinstance(obj, str):
        if not is_json_text(obj) or len(obj) > MAX_CONFIG_BYTES:
            return False
        try:
            obj = json.loads(obj)
        except (ValueError, RecursionError):
            return False
    if isinstance(obj, Mapping):
        return isinstance(obj.get("model_type"), str) or _is_mamba_ssm(obj) or _is_keras(obj)
    return _is_live(obj)


def load(obj: Any) -> tuple[str, dict[str, Any]]:
    """The model type and the config's keys.

    Parameters
    ----------
    obj : str, os.PathLike, Mapping or config object
        See :func:`is_config`.

    Returns
    -------
    (str, dict)
        ``"mamba_ssm"`` for mamba_ssm's format, ``"keras"`` for a Keras model's.

    Raises
    ------
    SourceError
        A file too large, not JSON, or not a JSON object; keys that are not strings; no model type.
    FileNotFoundError
        No such file.
    """
    if _is_json_path(obj):
        path = os.fspath(obj)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no such file: {clean(path, 200)}")
        if os.path.getsize(path) > MAX_CONFIG_BYTES:
            raise SourceError(f"{clean(path, 80)}: larger than {MAX_CONFIG_BYTES:,} bytes; not a model config")
        with open(path, "rb") as handle:
            data = _parse(handle.read(), clean(path, 80))
    elif isinstance(obj, str):
        data = _parse(obj.encode("utf-8", "replace"), "the JSON text")
    elif isinstance(obj, Mapping):
        data = dict(obj)
    elif hasattr(obj, "to_dict"):  # a transformers config (a dataclass too, but to_dict() adds model_type)
        data = obj.to_dict()
    else:  # mamba_ssm's MambaConfig dataclass
        data = dataclasses.asdict(obj)
    bad = [k for k in data if not isinstance(k, str)]
    if bad:
        raise SourceError(f"config keys must be strings, got {clean(repr(bad[0]), 60)}")
    if isinstance(data.get("model_type"), str):
        return data["model_type"], data
    if _is_mamba_ssm(data):
        return "mamba_ssm", data
    if _is_keras(data):
        return "keras", data
    if "model_type" in data:
        raise SourceError(f'a config\'s "model_type" is a string, got {clean(repr(data["model_type"])[:80], 80)}')
    got = f"got the keys {clean(', '.join(sorted(data))[:200], 200)}" if data else "got an empty object"
    raise SourceError(
        f'a config needs a "model_type" (transformers), mamba_ssm\'s d_model with n_layer or ssm_cfg, or a '
        f'Keras model\'s "class_name" and "config" (model.to_json()); {got}'
    )


def _is_keras(data: Mapping[str, Any]) -> bool:
    """A Keras model serialized (``model.to_json()``, a ``.keras`` archive's ``config.json``):
    ``keras/src/saving/serialization_lib.py`` ``serialize_keras_object`` writes ``class_name`` and ``config``."""
    return isinstance(data.get("class_name"), str) and isinstance(data.get("config"), Mapping)


def _parse(raw: bytes, where: str) -> dict[str, Any]:
    if len(raw) > MAX_CONFIG_BYTES:
        raise SourceError(f"{where}: larger than {MAX_CONFIG_BYTES:,} bytes; not a model config")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SourceError(f"{where}: not JSON ({clean(str(error), 120)})") from None
    if not isinstance(data, dict):
        raise SourceError(f"{where}: a config is a JSON object, got {type(data).__name__}")
    return data


# --- the closed form: the config's int values as symbols --------------------------------------------


@dataclass(frozen=True)
class _Map:
    """A nested mapping of a config (``ssm_cfg``), frozen so a formula can be cached by it."""

    items: tuple[tuple[str, Any], ...]


def _symbolize(config: Mapping[str, Any], values: dict[str, int]) -> tuple[tuple[str, Any], ...]:
    """The config with each int (not bool) a positive-integer symbol named by its key; ``values`` gets them.

    The keys a builder lists under ``_fixed`` stay numbers: a layer pattern given as data (Jamba's
    ``attn_layer_period``, a ``layer_types`` list as long as ``num_hidden_layers``) fixes them.
    The symbols are :class:`derive.tree.Letter` s, made SymPy symbols when a closed form is built."""
    fixed = frozenset(config.get("_fixed", ()))
    out: list[tuple[str, Any]] = []
    for key, value in config.items():
        if key == "_fixed":
            continue
        if isinstance(value, Mapping):
            value = _Map(_symbolize(value, values))
        elif type(value) is int and key not in fixed:
            values[key] = value
            value = Letter(key)
        out.append((key, value))
    return tuple(out)


def _thaw(items: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    return {k: _thaw(v.items) if isinstance(v, _Map) else letters_to_symbols(v) for k, v in items}


def _part(model_type: str, path: str, config: tuple[tuple[str, Any], ...]) -> Module | None:
    """The part at ``path`` of the model built with symbols (a :class:`~derive.tree.Formula` recipe).

    None when the symbolic build has no part at that path: a model whose layers follow a pattern
    (RecurrentGemma's ``block_types``) groups them differently once the layer count is a symbol, so
    its rows have no closed form of their own (the total's closed form, path ``""``, always exists).
    """
    from ...blocks import config_model

    model = config_model(model_type).build(_thaw(config))
    for where, module in named_modules(model, expand=False):
        if where == path:
            return module
    return None


class _ConfigRow(Row):
    """A row whose letters are the config keys its closed form uses."""

    @property
    def values(self) -> dict:
        """Letter -> value, for the letters :attr:`formula` uses."""
        used = {str(s) for s in getattr(self.formula, "free_symbols", ())}
        return {k: v for k, v in Row.values.fget(self).items() if k in used}  # type: ignore[attr-defined]

    @values.setter
    def values(self, value: dict) -> None:
        Row.values.fset(self, value)  # type: ignore[attr-defined]


# --- the report ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Part:
    """One row of the report: a part of the model, or the layers of one kind in a list of layers."""

    name: str  # the row's name: the part's path, or "path (kind ×n)"
    path: str  # where it is: the part's path, or the list's
    modules: tuple[Module, ...]  # the part, or the layers of the kind
    kind: tuple[Any, ...] | None = None  # the kind's signature, for a list's layers


def _kind(layer: Module) -> tuple[Any, ...]:
    """What a layer is made of, whatever its sizes: the relative path, type and parameter names of each
    module that holds parameters (buffers, such as a rotary embedding's, make no kind)."""
    one = layer.replace(name="", repeat=1, start=0)
    return tuple(
        (where, m.type, names)
        for where, m in named_modules(one, expand=False)
        if (names := tuple(q.name for q in m.params if not q.buffer))
    )


def _is_layer(module: Module) -> bool:
    return module.row or module.repeat != 1 or "{k}" in module.name


def _parts(module: Module, path: str = "") -> list[_Part]:
    """The rows: a repeated module (all its copies), a module without children, the layers of a list of
    layers grouped by kind (:func:`_layer_kinds`), or its children's rows."""
    here = f"{path}.{module.name}" if path and module.name else path or module.name
    if module.repeat != 1 or "{k}" in module.name or not module.children:
        return [_Part(here, here, (module,))]
    if all(_is_layer(child) for child in module.children):
        return _layer_kinds(module, here)
    return [row for child in module.children for row in _parts(child, here)]


def _layer_kinds(layers: Module, here: str) -> list[_Part]:
    """One row per kind of layer in a list of layers built one by one (RecurrentGemma's pattern of
    recurrent and attention blocks): ``model.layers (RecurrentBlock ×18)``; a kind of one layer keeps
    the layer's path (``rwkv.blocks.0``), a repeated module alone its row (``rwkv.blocks.{k}``)."""
    kinds: dict[tuple[Any, ...], list[Module]] = {}
    for child in layers.children:
        kinds.setdefault(_kind(child), []).append(child)
    labels = _labels(list(kinds.values()))
    out = []
    for (kind, members), label in zip(kinds.items(), labels):
        first = members[0]
        if len(members) == 1 and (first.repeat != 1 or "{k}" in first.name):
            out.append(_Part(f"{here}.{first.name}", f"{here}.{first.name}", (first,)))
            continue
        n = sum(int(m.repeat) for m in members)
        name = f"{here}.{first.name}" if n == 1 else f"{here} ({label} ×{n:,})"
        out.append(_Part(name, here, tuple(members), kind))
    return out


def _labels(groups: list[list[Module]]) -> list[str]:
    """Each kind's name: the first module type it has and another kind lacks (the layer's type when
    none), less the prefix all the names share (``RecurrentGemmaAttention`` -> ``Attention``)."""
    types = [[m.type for _, m in named_modules(g[0].replace(repeat=1), expand=False)] for g in groups]
    labels = []
    for i, own in enumerate(types):
        others = [set(t) for j, t in enumerate(types) if j != i]
        labels.append(next((t for t in own if any(t not in o for o in others)), groups[i][0].type))
    if len(labels) > 1:  # cut the shared prefix at a word: RecurrentGemma|Attention, RecurrentGemma|RecurrentBlock
        common = os.path.commonprefix(labels)
        cut = len(common)
        if not all(len(label) > cut and label[cut].isupper() for label in labels):
            cut = max((i for i, ch in enumerate(common) if ch.isupper()), default=0)
        if all(len(label) > cut for label in labels):
            labels = [label[cut:] for label in labels]
    return labels


def _of_kind(model_type: str, path: str, kind: tuple[Any, ...], config: tuple[tuple[str, Any], ...]) -> Any:
    """The closed form of the layers of one kind: those of the list at ``path`` of the model built with
    symbols (a pattern's positions, each repeated a symbolic number of times), summed; None if none."""
    from ...blocks import config_model

    model = config_model(model_type).build(_thaw(config))
    for where, module in named_modules(model, expand=False):
        if where == path:
            same = [count(child) for child in module.children if _kind(child) == kind]
            return sum(same[1:], same[0]) if same else None
    return None


def _part_note(part: _Part) -> str:
    if part.kind is None:
        return _note(part.modules[0])
    indices = [k for m in part.modules for k in _indices(m)]
    if len(indices) == 1:
        return ""
    shown = indices if len(indices) <= 8 else [*indices[:4], "…", *indices[-2:]]
    return f"{len(indices):,} layers, k = {', '.join(shown)}"


def _indices(module: Module) -> list[str]:
    """The layer indices a member of a kind stands for: its name, or each copy's of a repeated one."""
    if module.repeat == 1 and "{k}" not in module.name:
        return [module.name]
    return [str(k) for k in range(module.start, module.start + int(module.repeat))]


def _note(module: Module) -> str:
    if module.repeat == 1 and "{k}" not in module.name:
        ties = [p.tied_to for p in module.params if p.tied_to]
        return f"tied to {ties[0]}: counted once, there" if ties else ""
    n = module.repeat
    if type(n) is not int:  # a symbol: num_hidden_layers = L
        return f"{n} identical blocks, k = 0…{n - 1}"
    if n == 0:
        return "no layers"
    return f"{n:,} identical blocks, k = 0…{n - 1:,}" if n > 1 else "one block, k = 0"


def _defaults_note(model_type: str, given: Mapping[str, Any], shape: Mapping[str, Any], prefix: str = "") -> list[str]:
    out = []
    for key, value in shape.items():
        if isinstance(key, str) and key.startswith("_"):
            continue
        if isinstance(value, Mapping):
            inner = given.get(key)
            out += _defaults_note(model_type, inner if isinstance(inner, Mapping) else {}, value, f"{prefix}{key}.")
        elif key not in given:
            out.append(f"{prefix}{key}={value!r}")
    return out


#: Keys outside a config class that transformers still reads off any config: ``DynamicCache(config=...)``
#: picks sliding, chunked, shared or stateful cache layers by them (``cache_utils.py``,
#: ``get_layer_types_and_kwargs``).
CACHE_READ_KEYS = ("layer_types", "sliding_window", "attention_chunk_size", "kv_sharing_modes", "number_of_conv_states")


def _outside_note(model_type: str, given: Mapping[str, Any]) -> list[str]:
    """The keys of the config its class does not define (transformers keeps them and builds the same)."""
    from ...blocks import config_model

    entry = config_model(model_type)
    outside = entry.keys.outside(given) if entry.keys is not None else []
    if not outside:
        return []
    notes = []
    cache = [k for k in outside if k in CACHE_READ_KEYS and given.get(k) is not None]
    rest = [k for k in outside if k not in cache]
    if rest:
        shown = ", ".join(rest[:12]) + (f" and {len(rest) - 12} more" if len(rest) > 12 else "")
        notes.append(
            f"not keys of {entry.keys.cls}, so they change no tensor (transformers keeps them as attributes its "
            f"model never reads): {shown}"
        )
    if cache:
        notes.append(
            f"not keys of {entry.keys.cls}: {', '.join(cache)} change no tensor and not the model's attention "
            "(the class's own keys set what each layer attends to); the cache here is what that attention keeps. transformers' "
            "cache (DynamicCache(config=...), which the forward makes) reads them all the same and keeps other cache layers "
            "(cache_utils.py, get_layer_types_and_kwargs)"
        )
    return notes


def _with_aliases(model_type: str, given: Mapping[str, Any]) -> Mapping[str, Any]:
    """``given`` with each alias the config spells also under the key it names (LFM2's ``block_ff_dim`` is its
    ``intermediate_size``): that key is given, not at the class's default."""
    from ...blocks import config_model

    entry = config_model(model_type)
    aliases = entry.keys.aliases if entry.keys is not None else {}
    spelled = {target: given[alias] for alias, target in aliases.items() if alias in given and target not in given}
    return {**given, **spelled} if spelled else given


def _notes(model_type: str, given: Mapping[str, Any], model: Module) -> list[str]:
    notes = [n for n in model.note.split("\n") if n]  # the family's own (what it counts and what not)
    notes += _outside_note(model_type, given)
    defaults = _defaults_note(model_type, _with_aliases(model_type, given), model.config)
    if defaults:
        notes.append(f"not in the config, so at the config class's defaults: {', '.join(defaults)}")
    if model_type in ("mamba", "falcon_mamba") and "intermediate_size" in model.config:
        notes.append(
            f"intermediate_size {show(model.config['intermediate_size'])} is the mixer's inner width E (in_proj "
            "makes 2E, the gate and the SSM input), not an MLP; transformers reads it over int(expand * hidden_size)"
        )
    if model_type == "mamba_ssm":
        vocab, multiple = model.config["vocab_size"], model.config["pad_vocab_size_multiple"]
        padded = model.child("backbone").child("embedding").params[0].shape[0]
        if padded != vocab:
            notes.append(
                f"vocab_size {vocab:,} padded to {padded:,} (a multiple of pad_vocab_size_multiple={multiple})"
            )
    return notes


class UnknownModelType(ValueError):
    """A config of a model type no derive family builds (:mod:`derive.read.measured` may measure it).

    Parameters
    ----------
    message : str
        The refusal, naming the model type and the ones derive builds.
    model_type : str
        The config's ``model_type``.
    config : dict
        The config as read (every key but ``model_type``).
    """

    def __init__(self, message: str, model_type: str, config: dict[str, Any]) -> None:
        super().__init__(message)
        self.model_type = model_type
        self.config = config


def explain_config(obj: Any) -> Report:
    """The report of the model a config builds (see the module's docstring).

    Parameters
    ----------
    obj : str, os.PathLike, Mapping or config object
        See :func:`is_config`.

    Returns
    -------
    Report
        ``framework`` "transformers" (or "mamba_ssm"), one row per part, the tree in ``module``
        (whose :attr:`~derive.tree.Module.formula` is the total's closed form).

    Raises
    ------
    SourceError
        See :func:`load`.
    UnknownModelType
        A model type derive does not build (a ValueError).
    ValueError
        A key or value its builder cannot map (named).
    """
    from ...blocks import config_model

    model_type, config = load(obj)
    if model_type == "keras":
        from .keras_functional import explain_keras_config

        return explain_keras_config(config)
    try:
        entry = config_model(model_type)
    except ValueError as error:
        raise UnknownModelType(str(error), model_type, config) from None
    model = entry.build(config)
    values: dict[str, int] = {}
    frozen = _symbolize(model.config, values)
    letters = tuple(values.items())
    model = model.replace(
        formula=Formula(_part, kwargs=(("model_type", model_type), ("path", ""), ("config", frozen)), values=letters)
    )
    rows: list[Row] = []
    for part in _parts(model):
        where = (("model_type", model_type), ("path", part.path))
        if part.kind is None:
            recipe = Formula(_part, kwargs=(*where, ("config", frozen)), values=letters)
            module = part.modules[0]
            tensors = [(f"{part.path}.{n}", p.shape) for n, p in named_parameters(module.replace(name="", repeat=1))]
        else:
            recipe = Formula(_of_kind, kwargs=(*where, ("kind", part.kind), ("config", frozen)), values=letters)
            tensors = [(f"{part.path}.{n}", p.shape) for m in part.modules for n, p in named_parameters(m)]
        total = sum(count(m) for m in part.modules[1:]) + count(part.modules[0])
        rows.append(_ConfigRow(part.name, part.modules[0].type, total, recipe, note=_part_note(part), tensors=tensors))
    framework = "mamba_ssm" if model_type == "mamba_ssm" else "transformers"
    title = f"{entry.architecture} from a {'mamba_ssm' if framework == 'mamba_ssm' else repr(model_type)} config"
    return Report(framework, rows, title, notes=_notes(model_type, config, model), module=model)
