"""Live blocks and pretrained models derived, not only counted: ``derive.explain(model)`` on a
transformers ``MambaForCausalLM``, a mamba_ssm ``Mamba``, an fla ``GatedLinearAttention``.

Two generic routes, no list of classes:

- a live object whose ``config`` is one derive builds (:data:`derive.blocks.CONFIG_MODELS`:
  a transformers ``PreTrainedModel``, fla's models, mamba_ssm's ``MambaLMHeadModel``) is answered
  from that config through the config readers (:func:`derive.read.configs.pretrained.explain_config`: rows
  per part, closed forms in the config's own keys) — the whole model, or the part of it whose class
  the live object is (``MambaModel`` is the ``backbone`` of ``MambaForCausalLM``);
- a live module whose class is a registered constructor's (:mod:`derive.engine.constructors`:
  same class name, ``type(obj).__module__`` in its ``module_types``, a ``read``; the blocks' and
  other libraries', torch's own being :mod:`derive.read.live.pytorch`'s) is remade from the
  arguments ``read`` gives back (its attributes, never its weights), one row with its closed form.

Either way the derivation is held against the live tensors: every parameter's name and shape (as
``named_parameters()`` lists them, ties once) must be the derivation's, or the object is counted
from its own tensors as before, with a note saying what differs. ``torch.nn``'s own classes keep
:mod:`derive.read.live.pytorch`'s readers (their children stay rows of their own).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...engine.constructors import CONSTRUCTORS, Constructor
from ...tree import Module, named_modules, named_parameters
from ..report import Report
from ..source import SourceError, clean

__all__ = ["explain_pretrained", "live_block", "registered_for", "config_of", "difference", "unshown_notes"]

_INDEX: dict[tuple[str, str], Constructor] = {}
_INDEXED = [-1]


def registered_for(cls: type) -> Constructor | None:
    """The constructor registered for live objects of ``cls`` (by class name and module path), or None.

    Parameters
    ----------
    cls : type

    Returns
    -------
    Constructor or None
        One with a ``read`` that is not deferred (Keras-style layers are read elsewhere).
    """
    # the modules that register a constructor of this class name, and no other (a user's own class: none)
    CONSTRUCTORS.load(cls.__name__)
    loaded = CONSTRUCTORS.loaded()
    if _INDEXED[0] != len(loaded):
        _INDEX.clear()
        for c in loaded.values():
            if c.read is not None and not c.deferred and c.framework != "torch":  # torch's: live_torch reads them
                for where in c.module_types:
                    _INDEX.setdefault((where, c.name), c)
        _INDEXED[0] = len(loaded)
    return _INDEX.get((cls.__module__, cls.__name__))


def config_of(obj: Any) -> tuple[str, dict[str, Any]] | None:
    """The model type and keys of a live model's ``config``, when derive builds that model type.

    Parameters
    ----------
    obj : object
        A live model (anything with a ``config`` attribute that is a config object).

    Returns
    -------
    (str, dict) or None
        None for no config object, or a model type derive does not build (read as before).
    """
    config = getattr(obj, "config", None)
    if config is None or isinstance(config, (Mapping, str, bytes)):
        return None
    from ...blocks import CONFIG_MODELS
    from ..configs.pretrained import is_config, load

    model_type = getattr(config, "model_type", None)
    try:
        if is_config(config):
            model_type, data = load(config)
        elif isinstance(model_type, str) and callable(getattr(config, "to_dict", None)):  # fla's configs
            data = {**config.to_dict(), "model_type": model_type}
        else:
            return None
    except (SourceError, TypeError, ValueError):
        return None
    return (model_type, data) if model_type in CONFIG_MODELS else None


def _live(obj: Any) -> dict[str, tuple[int, ...]]:
    return {name: tuple(p.shape) for name, p in obj.named_parameters()}


def _derived(module: Module) -> dict[str, tuple]:
    return {name: tuple(p.shape) for name, p in named_parameters(module.replace(name="", repeat=1))}


def difference(
    have: Mapping[str, tuple], want: Mapping[str, tuple], have_is: str = "live", want_is: str = "derived"
) -> str:
    """The first difference between two sets of named shapes ("" when they are equal).

    Parameters
    ----------
    have, want : mapping of str to tuple
        Name -> shape: the live tensors and the derivation's, by default.
    have_is, want_is : str
        How the message names each side.

    Returns
    -------
    str

    Examples
    --------
    >>> difference({"a": (2,)}, {"a": (3,)}), difference({"a": (2,)}, {"a": (2,), "b": (1,)})
    ('a is (2,) live, (3,) derived', 'b is derived but not live')
    """
    for name, shape in have.items():
        if name not in want:
            return f"{clean(name, 80)} is {have_is} but not {want_is}"
        if tuple(want[name]) != tuple(shape):
            return f"{clean(name, 80)} is {tuple(shape)} {have_is}, {tuple(want[name])} {want_is}"
    for name in want:
        if name not in have:
            return f"{clean(name, 80)} is {want_is} but not {have_is}"
    return ""


def _part(tree: Module, cls: str) -> tuple[str, Module] | None:
    """The first module of ``tree`` of class ``cls`` that is one module (not a repeated layer)."""
    for path, module in named_modules(tree, expand=False):
        if module.type == cls and module.repeat == 1 and "{k}" not in path:
            return path, module
    return None


def _frozen(obj: Any) -> list[str]:
    return [name for name, p in obj.named_parameters() if not p.requires_grad]


def _frozen_note(frozen: list[str]) -> str:
    shown = ", ".join(clean(n, 60) for n in frozen[:3]) + (", ..." if len(frozen) > 3 else "")
    return (
        f"{len(frozen):,} tensor{'s' if len(frozen) != 1 else ''} frozen (requires_grad=False: {shown}); "
        "every parameter is counted, as model.parameters() counts them"
    )


def _from_config(obj: Any) -> tuple[str, str, Module] | str | None:
    """(model type, path, part) of the model ``obj.config`` builds; a reason when it cannot be used."""
    found = config_of(obj)
    if found is None:
        return None
    model_type, data = found
    from ...blocks import config_model

    cls = clean(type(obj).__name__, 60)
    entry = config_model(model_type)
    try:
        tree = entry.build(data)
    except (TypeError, ValueError) as error:
        return f"its config is not one derive maps ({clean(str(error), 200)}); counted from its tensors"
    part = _part(tree, type(obj).__name__)
    if part is None:
        return (
            f"derive builds {entry.architecture} from a {model_type!r} config, and no part of it is a {cls}; "
            "counted from its tensors"
        )
    return model_type, part[0], part[1]


def _checked(obj: Any, module: Module, how: str) -> str:
    """Why ``module`` does not stand for the live ``obj`` ("" when every tensor is the same)."""
    differs = difference(_live(obj), _derived(module))
    if differs:
        return f"{how} differs from the live tensors ({differs}); counted from its tensors"
    return ""


def explain_pretrained(obj: Any) -> Report | str | None:
    """The report of a live model from its ``config``, checked against its tensors.

    Parameters
    ----------
    obj : torch.nn.Module
        A transformers ``PreTrainedModel`` (or fla's, mamba_ssm's ``MambaLMHeadModel``).

    Returns
    -------
    Report, str or None
        The config's report (rows per part, closed forms in the config's keys), restricted to the
        part the object is when it is one (``MambaModel``); a note saying why not when the config
        cannot be used or builds other tensors; None for an object without a config derive builds.
    """
    found = _from_config(obj)
    if not isinstance(found, tuple):
        return found
    model_type, path, part = found
    why = _checked(obj, part, "the model its config builds")
    if why:
        return why
    from ..configs.pretrained import explain_config

    _, data = config_of(obj) or ("", {})
    report = explain_config(data)
    if path:
        cut = len(path) + 1
        kept = [row for row in report.rows if row.name.startswith(path + ".")]
        for row in kept:
            row.name = row.name[cut:]
            row.tensors = [(name[cut:], shape) for name, shape in row.tensors]
        report = Report(report.framework, kept, notes=report.notes, module=part.replace(name=""))
    cls = clean(type(obj).__name__, 60)
    report.title = f"{cls} (live; derived from its {model_type!r} config)"
    report.notes.append(
        "derived from model.config; every parameter's name and shape is the live model's (named_parameters())"
    )
    frozen = _frozen(obj)
    if frozen:
        report.notes.append(_frozen_note(frozen))
    return report


def _trainable(module: Module, frozen: set[str], path: str = "") -> Module:
    """``module`` with the parameters named in ``frozen`` (full names) marked not trainable."""
    params = tuple(
        replace(p, trainable=False) if (f"{path}.{p.name}" if path else p.name) in frozen else p for p in module.params
    )
    children = tuple(
        _trainable(c, frozen, f"{path}.{c.name}" if path and c.name else path or c.name) for c in module.children
    )
    return module.replace(params=params, children=children)


def live_block(module: Any, name: str, path: str, seen: dict[int, str]) -> Module | str | None:
    """A live submodule derived whole: from its config or its registered constructor.

    Parameters
    ----------
    module : torch.nn.Module
    name : str
        Its name in its parent.
    path : str
        Its full dotted path ("" for the root).
    seen : dict of int to str
        The live reader's Parameters met so far (id -> full name); the block's are added.

    Returns
    -------
    derive.tree.Module, str or None
        The derived module (one row, its closed form where the derivation has one); a note saying
        why not (the reader then counts it from its tensors); None when nothing is registered for it.
    """
    cls = type(module)
    if cls.__module__.startswith("torch.nn."):
        return None
    kind = clean(cls.__name__, 60)
    found = _from_config(module)
    if isinstance(found, str):
        return found
    if isinstance(found, tuple):
        made, why, note = found[2], _checked(module, found[2], "the model its config builds"), "derived from its config"
    else:
        constructor = registered_for(cls)
        if constructor is None:
            return None
        read = constructor.read
        assert read is not None  # registered_for gives only constructors with a read
        try:
            args, kwargs = read(module)
            made = constructor.make(*args, **kwargs)
        except (TypeError, ValueError, AttributeError, KeyError) as error:
            return f"its arguments could not be read back ({clean(str(error), 160)}); counted from its tensors"
        if not isinstance(made, Module):
            return None
        why = _checked(module, made, f"{constructor.framework} {constructor.name} of its arguments")
        note = ""
    if why:
        return why
    params = dict(module.named_parameters())
    prefix = f"{path}." if path else ""
    if any(id(p) in seen for p in params.values()):  # shares a tensor with a module read before
        return "it shares a tensor with another module; counted from its tensors"
    for key, p in params.items():
        seen.setdefault(id(p), prefix + key)
    frozen = [key for key, p in params.items() if not p.requires_grad]
    if frozen:
        made, note = (
            _trainable(made.replace(name=""), set(frozen)),
            "; ".join(filter(None, (note, _frozen_note(frozen)))),
        )
    return made.replace(name=name, type=kind, row=True, note=note)


def unshown_notes(tree: Module) -> list[str]:
    """The notes of modules that are no row of a table (a block read from its children's tensors
    because its derivation differs: the reason), as report notes (``path (Class): note``).

    Parameters
    ----------
    tree : derive.tree.Module
        A live object's tree (:func:`derive.read.live.pytorch.torch_tree`).

    Returns
    -------
    list of str
    """
    out = []
    for path, module in named_modules(tree, expand=False):
        if module.note and module.children and not module.row and not any(p.counted for p in module.params):
            out.append(f"{clean(path, 80) + ' ' if path else ''}({module.type}): {module.note}")
    return out
