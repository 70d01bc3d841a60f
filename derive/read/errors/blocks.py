"""``load_state_dict`` errors between block models (Mamba, Mamba-2, RWKV, RecurrentGemma, mamba_ssm's
language model) explained: the config key that differs, with the checkpoint's value and the model's.

Each model type derive builds from a config (:data:`derive.blocks.CONFIG_MODELS`) is built once with
its size keys as SymPy symbols (a *template*: every tensor's shape as an expression of the config's
keys, ``backbone.layers.#.mixer.A_log`` -> (intermediate_size, state_size)). The tensors an error
names — "size mismatch for <name>: copying a param with shape torch.Size([...]) from checkpoint, the
shape in current model is torch.Size([...])" — are matched against the templates by name (layer
indices aside); each side's shapes are equations in the keys, solved one unknown at a time; a key
whose values differ is reported with both. A combination the shapes fix only as a whole (Mamba-2's
``expand*hidden_size + 2*n_groups*state_size`` conv channels) is reported as that expression.
Unexpected and missing keys give the number of layers (indices beyond the other side's) and the
flags that add a tensor (``use_bias``, ``use_conv_bias``).

>>> lines, names = explain_blocks({"backbone.layers.0.mixer.A_log": ((1536, 16), (1536, 64))}, [], [])
>>> print(lines[0])
MambaForCausalLM: checkpoint has state_size=16, your model 64 (also MambaLMHeadModel: d_state) — from backbone.layers.0.mixer.A_log
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...tree import named_modules, named_parameters
from ..source import clean

__all__ = ["explain_blocks", "template", "Template", "normalized"]

#: The keys that count a model's layers (set to a small int in a template).
LAYER_KEYS = ("num_hidden_layers", "n_layer")
#: Keys a template keeps as their own symbols although the defaults derive them (transformers'
#: configs save Mamba's inner width and time-step rank as numbers, and mamba_ssm its dt_rank).
OWN_SYMBOLS = {
    "mamba": ("intermediate_size", "time_step_rank"),
    "falcon_mamba": ("intermediate_size", "time_step_rank"),
    "mamba_ssm": ("ssm_cfg.dt_rank",),
}
#: Set in a template to keep a size readable (mamba_ssm pads the vocabulary: without padding it is the rows).
FIXED = {"mamba_ssm": {"pad_vocab_size_multiple": 1}}
#: First parts of names many models share: a name of these alone does not tell a block model.
GENERIC = frozenset({"lm_head", "head", "model", "embeddings", "embedding", "norm", "ln_f", "emb"})
_INDEX = re.compile(r"\.\d+(?=\.)")
_TEMPLATES: dict[str, Any] = {}

Shape = tuple[int, ...]


def normalized(name: str) -> str:
    """A tensor name with its layer indices as ``#`` (``layers.3.mixer`` -> ``layers.#.mixer``).

    Parameters
    ----------
    name : str

    Returns
    -------
    str
    """
    return _INDEX.sub(".#", name)


def _symbolized(config: Mapping[str, Any], own: tuple[str, ...], prefix: str = "") -> dict[str, Any]:
    import sympy

    out: dict[str, Any] = {key: None for key in own if "." not in key and not prefix and key not in config}
    for key, value in {**config, **out}.items():
        path = prefix + key
        if isinstance(value, Mapping):
            out[key] = _symbolized(value, own, path + ".")
        elif key in LAYER_KEYS:
            out[key] = 3  # every kind of layer of a pattern of up to three (RecurrentGemma's)
        elif (type(value) is int and value > 0) or path in own:
            out[key] = sympy.Symbol(key, integer=True, positive=True)
        else:
            out[key] = value
    return out


def _flipped(config: Mapping[str, Any], prefix: str = "") -> list[tuple[str, dict[str, Any]]]:
    """``config`` with each bool key flipped in turn (nested keys too): (dotted key, config)."""
    out = []
    for key, value in config.items():
        if isinstance(value, bool):
            out.append((prefix + key, {**config, key: not value}))
        elif isinstance(value, Mapping):
            out += [(k, {**config, key: v}) for k, v in _flipped(value, prefix + key + ".")]
    return out


def _shapes(build: Any, config: Mapping[str, Any]) -> dict[str, tuple]:
    return {normalized(name): tuple(p.shape) for name, p in named_parameters(build(config), ties=True)}


@dataclass(frozen=True)
class Template:
    """A model type's tensors in its config's keys.

    Attributes
    ----------
    architecture : str
        The class its config builds (``"MambaForCausalLM"``).
    shapes : dict of str to tuple
        Normalized name -> shape, each dimension a SymPy expression of the config's keys: every tensor
        the defaults build, and each one a flipped bool key adds (``in_proj.bias`` under ``use_bias``).
    flags : dict of str to (str, bool)
        Normalized name of a tensor one bool key adds -> (the key, the value that has it).
    parts : dict of str to str
        Class name -> its path in the model (``"MambaModel"`` -> ``"backbone"``).
    layer_key : str
        The key that counts the layers.
    """

    architecture: str
    shapes: dict[str, tuple]
    flags: dict[str, tuple[str, bool]]
    parts: dict[str, str]
    layer_key: str


def template(model_type: str) -> Template | None:
    """``model_type``'s :class:`Template` (built once), or None when it cannot be built with symbols.

    Parameters
    ----------
    model_type : str

    Returns
    -------
    Template or None
    """
    if model_type not in _TEMPLATES:
        from ...blocks import config_model

        entry = config_model(model_type)
        try:
            base = {**entry.build({}).config, **FIXED.get(model_type, {})}
            base.pop("model_type", None)
            symbolic = _symbolized(base, OWN_SYMBOLS.get(model_type, ()))
            tree = entry.build(symbolic)
            shapes = _shapes(entry.build, symbolic)
            flags: dict[str, tuple[str, bool]] = {}
            flagged: dict[str, tuple] = {}  # a tensor a flag adds has its shape too (both sides may have it)
            for key, other in _flipped(symbolic):
                try:
                    more = _shapes(entry.build, other)
                except (TypeError, ValueError):
                    continue
                value = _get(other, key)
                flags.update((name, (key, value)) for name in more.keys() - shapes.keys())
                flagged.update((name, more[name]) for name in more.keys() - shapes.keys())
                flags.update((name, (key, not value)) for name in shapes.keys() - more.keys())
            parts = {m.type: path for path, m in reversed(list(named_modules(tree, expand=False))) if "{" not in path}
            layer_key = next((k for k in LAYER_KEYS if k in base), LAYER_KEYS[0])
            _TEMPLATES[model_type] = Template(entry.architecture, {**flagged, **shapes}, flags, parts, layer_key)
        except (TypeError, ValueError, ArithmeticError):  # no symbolic build: not explained by key
            _TEMPLATES[model_type] = None
    return _TEMPLATES[model_type]


def _get(config: Mapping[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        config = config[part]
    return config


def _solve(equations: list[tuple[Any, int]]) -> dict[Any, Any]:
    """The symbols fixed by ``expr == value`` equations, solving one unknown at a time."""
    import sympy

    equations = list(dict.fromkeys(equations))  # every layer gives the same equations once
    known: dict[Any, Any] = {}
    changed = True
    while changed:
        changed = False
        for expr, value in equations:
            rest = sympy.sympify(expr).subs(known)
            if len(rest.free_symbols) != 1:
                continue
            (symbol,) = rest.free_symbols
            if rest.has(sympy.floor, sympy.ceiling):  # a size halved or rounded: not one value
                continue
            try:
                roots = sympy.solve(sympy.Eq(rest, value), symbol)
            except (NotImplementedError, TypeError, ValueError):
                continue
            roots = [r for r in roots if r.is_Integer and r > 0]
            if len(roots) == 1:
                known[symbol] = roots[0]
                changed = True
    return known


def _differences(
    shapes: Mapping[str, tuple], found: Mapping[str, tuple[Shape, Shape]], prefix: str = ""
) -> list[tuple[str, Any, Any, str]]:
    """(key or expression, checkpoint value, model value, first tensor showing it) for each difference."""
    import sympy

    unique: dict[tuple[Any, int, int], str] = {}  # every layer gives the same equations: each once
    for name, (checkpoint, mine) in found.items():
        for dim, c, m in zip(shapes[normalized(prefix + name)], checkpoint, mine, strict=True):
            unique.setdefault((dim, c, m), name)
    rows = [(sympy.sympify(dim), c, m, name) for (dim, c, m), name in unique.items()]
    first: dict[Any, str] = {}
    for dim, _, _, name in rows:
        for symbol in dim.free_symbols:
            first.setdefault(symbol, name)
    ckpt = _solve([(dim, c) for dim, c, _, _ in rows])
    model = _solve([(dim, m) for dim, _, m, _ in rows])
    out = [
        (str(s), int(ckpt[s]), int(model[s]), first[s])
        for s in sorted(ckpt.keys() & model.keys(), key=str)
        if ckpt[s] != model[s]
    ]
    seen = {key for key, *_ in out}
    for dim, c, m, name in rows:
        rest = (dim.subs(ckpt), dim.subs(model))
        if sympy.expand(rest[0] - c - rest[1] + m) == 0:  # what is left is the same on both sides
            continue
        if (rest[0].free_symbols or rest[1].free_symbols) and str(dim) not in seen:
            seen.add(str(dim))
            out.append((str(dim), c, m, name))
    return out


def _consistent(shapes: Mapping[str, tuple], found: Mapping[str, tuple[Shape, Shape]], prefix: str = "") -> bool:
    """Whether each side's shapes are one config's: the ranks agree and no equation contradicts another."""
    import sympy

    for side in (0, 1):
        equations = []
        for name, pair in found.items():
            dims = shapes[normalized(prefix + name)]
            if len(dims) != len(pair[side]):
                return False
            equations += list(zip(dims, pair[side], strict=True))
        known = _solve(equations)
        for dim, value in dict.fromkeys(equations):
            rest = sympy.sympify(dim).subs(known)
            if not rest.free_symbols and rest != value:
                return False
    return True


def _telling(name: str) -> bool:
    """Whether a name can tell a block model from others: a layer's tensor, or not one of the names
    every language model has (``lm_head.weight``, ``model.embed_tokens.weight``)."""
    return "#" in name or name.split(".", 1)[0] not in GENERIC


#: A candidate: the template, and the path of the module whose state dict the error is about.
Candidate = tuple[Template, str]


def _candidates(
    names: list[str], owner: str, found: Mapping[str, tuple[Shape, Shape]] | None = None
) -> list[Candidate]:
    """The templates that have these names (and, given shapes, fit both sides), the one whose class
    (or part: ``MambaModel``) ``owner`` is first; the names then lie under that part's path."""
    from ...blocks import CONFIG_MODELS

    out: list[Candidate] = []
    for model_type in CONFIG_MODELS:
        built = template(model_type)
        if built is None or any(built.shapes == other.shapes for other, _ in out):  # FalconMamba's are Mamba's
            continue
        path = built.parts.get(owner, "")
        prefix = f"{path}." if path else ""
        wanted = {normalized(prefix + n) for n in names}
        if not any(map(_telling, wanted)) or not wanted <= built.shapes.keys() | built.flags.keys():
            continue
        if found is None or (wanted <= built.shapes.keys() and _consistent(built.shapes, found, prefix)):
            out.append((built, prefix))
    return sorted(out, key=lambda c: owner not in c[0].parts)


def _mismatch_lines(found: Mapping[str, tuple[Shape, Shape]], owner: str) -> list[str]:
    candidates = _candidates(list(found), owner, found)
    if not candidates:
        return []
    (main, prefix), *others = candidates
    aliases: dict[tuple[Any, Any], list[str]] = {}
    for other, other_prefix in others:
        for key, c, m, _ in _differences(other.shapes, found, other_prefix):
            aliases.setdefault((c, m), []).append(f"{other.architecture}: {_shown(key)}")
    lines = []
    for key, c, m, name in _differences(main.shapes, found, prefix):
        alias = [a.replace(f": {_shown(key)}", "") for a in aliases.get((c, m), [])]
        also = f" (also {'; '.join(dict.fromkeys(alias))})" if alias else ""
        what = f"{key}={c}, your model {m}" if key.isidentifier() else f"{_shown(key)} = {c}, your model {m}"
        lines.append(f"{main.architecture}: checkpoint has {what}{also} — from {clean(name, 80)}")
    return lines


def _shown(expr: str) -> str:
    """An expression as Python writes it: ``floor(a/2)`` -> ``a // 2``."""
    return re.sub(r"floor\((\w+)/(\d+)\)", r"\1 // \2", expr)


def _layer(name: str) -> int | None:
    found = _INDEX.search(name)
    return int(found.group()[1:]) if found else None


def _key_lines(missing: list[str], unexpected: list[str], owner: str) -> tuple[list[str], set[str]]:
    """Layers beyond the other side's, and flags that add a tensor, from missing and unexpected keys —
    only by a model holding ``owner`` where that is a class of a model derive builds: keys a
    ``LlamaForCausalLM`` does not have say nothing of its layers, whichever model has them."""
    from ...blocks import CONFIG_MODELS

    candidates = _candidates(missing + unexpected, owner)
    if owner and any(owner in t.parts for t in map(template, CONFIG_MODELS) if t is not None):
        candidates = [c for c in candidates if owner in c[0].parts]
    if not candidates:
        return [], set()
    main, prefix = candidates[0]
    lines, done = [], set()
    for keys, ckpt in ((unexpected, True), (missing, False)):
        whole = {_layer(k) for k in keys if _layer(k) is not None and normalized(prefix + k) not in main.flags}
        layered = [k for k in keys if _layer(k) in whole]  # whole layers, their flagged tensors too
        if layered:
            low = min(_layer(k) or 0 for k in layered)
            high = max(_layer(k) or 0 for k in layered) + 1
            counts = (high, low) if ckpt else (low, high)
            lines.append(
                f"{main.architecture}: checkpoint has {main.layer_key}={counts[0]}, your model {counts[1]} — "
                f"{'the checkpoint has' if ckpt else 'your model has'} layers {low:,} … {high - 1:,} "
                f"({clean(layered[0], 80)}, ...)"
            )
            done |= set(layered)
        shown: set[str] = set()
        for name in keys:
            flag = main.flags.get(normalized(prefix + name))
            if flag is None or name in done:
                continue
            key, value = flag
            done.add(name)
            if key not in shown:
                shown.add(key)
                c, m = (value, not value) if ckpt else (not value, value)
                lines.append(f"{main.architecture}: checkpoint has {key}={c}, your model {m} — from {clean(name, 80)}")
    return lines, done


def explain_blocks(
    found: Mapping[str, tuple[Shape, Shape]], missing: list[str], unexpected: list[str], owner: str = ""
) -> tuple[list[str], set[str]]:
    """Lines naming the config keys that differ, and the tensor names they explain.

    Parameters
    ----------
    found : mapping of str to (shape, shape)
        Size mismatches: name -> (the checkpoint's shape, the model's).
    missing, unexpected : list of str
        The keys ``load_state_dict`` reports missing (the model has, the checkpoint lacks) and
        unexpected (the checkpoint has, the model lacks).
    owner : str, optional
        The class the error names ("Error(s) in loading state_dict for MambaLMHeadModel"): its
        model (or the part of one it is) is preferred, and the names are read under that part.

    Returns
    -------
    (list of str, set of str)
        Empty when no block model has these tensor names.
    """
    lines = _mismatch_lines(found, owner) if found else []
    explained = set(found) if lines else set()
    more, done = _key_lines(missing, unexpected, owner) if (missing or unexpected) else ([], set())
    return lines + more, explained | done
