"""The public family API: a language-model family is one module that composes the shared primitives,
declares its config class's keys as data (:class:`~derive.blocks.hf_config.Keys`) and its released
configs (:class:`Release`), and registers itself with :func:`register_family`.

A family module (``derive/families/<model_type>.py``) holds, in this order:

1. its ``KEYS``: every key of the config class, each mapped to a shape (with the class's default) or
   inert with the reason (``tests/families/test_keys.py`` reads the installed class and fails on a
   key the family does not declare, so a transformers upgrade shows what is new);
2. its builder ``config -> derive.tree.Module``, composing :mod:`derive.families.decoder`
   (embedding, layer list, final norm, head, rotary buffers), :mod:`derive.layers` (attention
   variants, MLPs, experts, norms) and :mod:`derive.blocks` (recurrent mixers), the layer pattern
   read from the config's keys;
3. ``register_family(...)``.

Its data is one file, ``derive/families/data/<model_type>.json``: its releases (configs as their
authors published them, each with its source: :func:`released`) and the small configs the live
tests build and run (:func:`tiny`).

Nothing else names a family: the tests (``tests/families/test_registry.py``: every release, the
class's defaults, the tiny configs and their mutations against transformers on the meta device,
caches after a forward, FLOPs per token), the site's family entries and the released-models table
are read off the registry (:func:`families`, :func:`released`), and the lookup of a model type
imports only its module (:mod:`derive.engine.lazy`: a module named as its model type is found by
that name, needing no entry in the index).

A new family is therefore its module, its data file and a CHANGELOG line.

>>> from derive.families.family import released
>>> "meta-llama/Llama-2-7b-hf" in {r.name for r in released("llama")}
True
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..blocks import CONFIG_MODELS, ConfigModel, register_config
from ..blocks.hf_config import Keys
from ..engine.constructors import Constructor, register
from ..tree import Module

__all__ = ["Release", "register_family", "families", "released", "release", "tiny", "Keys"]


@dataclass(frozen=True)
class Release:
    """A released model's ``config.json``, as its authors published it, with where it was read.

    Attributes
    ----------
    name : str
        The Hub's name (``"Qwen/Qwen3-8B"``).
    config : mapping
        The file's object, every key as released (``model_type`` included); derive never edits it.
    source : str
        Where this copy was read (a URL of the file), the config being the Hub's own.
    published : str
        The size its authors state (``"8.2B"``, ``"47B total, 13B active"``); "" where none is.
    published_source : str
        Where they state it (the model card's or the paper's address and section).
    note : str
        Why a count differs from the published figure, where it does.
    """

    name: str
    config: Mapping[str, Any]
    source: str
    published: str = ""
    published_source: str = ""
    note: str = ""

    @property
    def model_type(self) -> str:
        """The config's ``model_type``."""
        return str(self.config["model_type"])


def register_family(
    model_type: str,
    cls: str,
    architecture: str,
    build: Callable[[Mapping[str, Any]], Module],
    source: str,
    package: str | None = None,
    *,
    keys: Keys | None = None,
) -> None:
    """Register ``build`` as the reader of ``model_type`` configs, and ``cls(**kwargs)`` as code.

    Its releases and test configs are data, read when asked (:func:`released`, :func:`tiny`) from
    ``derive/families/data/<model_type>.json``.

    Parameters
    ----------
    model_type : str
    cls : str
        The config class (``"LlamaConfig"``).
    architecture : str
        The model class ``AutoModelForCausalLM.from_config`` builds (``"LlamaForCausalLM"``).
    build : callable (config) -> derive.tree.Module
        The model as transformers builds it, from a config's keys (absent ones at the class's
        defaults; sizes may be SymPy symbols).
    source : str
        The transformers files read (paths and lines).
    package : str, optional
        The package under ``transformers.models`` (default ``model_type``: ``gemma3`` for ``gemma3_text``).
    keys : Keys, optional
        The config class's keys (:class:`~derive.blocks.hf_config.Keys`); a complete one lets a
        key outside the class be answered with a note rather than refused.

    Raises
    ------
    ValueError
        ``model_type`` or the config class is registered already.
    TypeError
        (Raised by the registered ``cls(...)``) a positional argument: a config class takes keywords only.
    """
    package = package or model_type
    register_config(model_type, architecture=architecture, source=source, keys=keys, config_class=cls)(build)

    def make(*args: Any, **kwargs: Any) -> Module:
        if args:
            raise TypeError(f"{cls} accepts only keyword arguments")
        return build(kwargs)

    register(
        Constructor(
            "transformers",
            cls,
            make,
            prefixes=("", "transformers.", f"transformers.models.{package}."),
            module_types=(f"transformers.models.{package}.configuration_{package}",),
            source=source,
        )
    )


def families() -> dict[str, ConfigModel]:
    """Every model type derive reads from a config (each module imported), by ``model_type``; an alias
    (a release's own name for a model type of transformers', :attr:`~derive.blocks.ConfigModel.alias_of`:
    Kimi-K2's ``kimi_k2``) is answered but is no family of its own, and is left out.

    Returns
    -------
    dict of str -> derive.blocks.ConfigModel
    """
    return {t: e for t, e in CONFIG_MODELS.items() if not e.alias_of}


@functools.cache
def _data(model_type: str) -> Mapping[str, Any]:
    """``derive/families/data/<model_type>.json`` (``{"releases": [...], "tiny": [...]}``), or empty."""
    path = resources.files(__package__).joinpath("data", f"{model_type}.json")
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def released(model_type: str | None = None) -> tuple[Release, ...]:
    """The releases derive ships: of one model type, or of all (in registry order).

    Parameters
    ----------
    model_type : str, optional

    Returns
    -------
    tuple of Release
        Each config as its authors published it (a fresh copy: callers may not change the data).
    """
    if model_type is None:
        return tuple(r for t in families() for r in released(t))
    return tuple(
        Release(
            r["name"],
            copy.deepcopy(r["config"]),
            r["source"],
            r.get("published", ""),
            r.get("published_source", ""),
            r.get("note", ""),
        )  # fmt: skip
        for r in _data(model_type).get("releases", ())
    )


def release(name: str) -> Release:
    """The release named ``name``, as derive ships it (its ``config.json`` as published, with its source).

    Parameters
    ----------
    name : str
        The Hub's name, e.g. ``"meta-llama/Llama-2-7b-hf"``.

    Returns
    -------
    Release
        A fresh copy.

    Raises
    ------
    KeyError
        If derive ships no release of that name.

    Examples
    --------
    >>> release("meta-llama/Llama-2-7b-hf").config["num_hidden_layers"]
    32
    """
    for r in released():
        if r.name == name:
            return r
    raise KeyError(f"derive ships no release named {name!r} (derive/families/data/*.json)")


def tiny(model_type: str) -> tuple[dict[str, Any], ...]:
    """Small configs of ``model_type`` the live tests build on the meta device and run on the CPU.

    Parameters
    ----------
    model_type : str

    Returns
    -------
    tuple of dict
        Each without its ``model_type`` (a fresh copy).
    """
    return tuple(copy.deepcopy(c) for c in _data(model_type).get("tiny", ()))
