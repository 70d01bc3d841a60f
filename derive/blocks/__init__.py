"""Today's recurrent blocks — Mamba, Mamba-2, RWKV, Griffin's RG-LRU, S4D/S4/S5/LRU — and the
pretrained models built of them.

Each module of this package writes one block family once: its update equations (for the site)
and its parameter declarations as a composition of the primitives of :mod:`derive.layers` on the
module tree (:mod:`derive.tree`); each framework's spelling of the block (``mamba_ssm.Mamba``,
transformers' ``MambaMixer``) registers its constructor (:mod:`derive.engine.constructors`), and
each transformers model type its config reader with :func:`register_config`. A module is imported
when a name it registers is first asked for (:mod:`derive.engine.lazy`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..engine.lazy import Registry
from ..tree import Module

__all__ = ["ConfigModel", "CONFIG_MODELS", "register_config", "config_model"]


@dataclass(frozen=True)
class ConfigModel:
    """A transformers model type derive builds from its ``config.json``.

    Attributes
    ----------
    model_type : str
        The config's ``model_type`` (``"mamba"``, ``"mamba2"``, ``"rwkv"``, ``"recurrent_gemma"``).
    build : callable
        ``build(config)`` -> the :class:`derive.tree.Module` of the model
        ``AutoModelForCausalLM.from_config(config)`` builds, named as transformers names it; the
        config is a mapping of the config's keys (absent keys take the config class's defaults;
        values may be SymPy symbols for the closed form). Raises ValueError naming a key it cannot map.
    architecture : str
        The class built (``"MambaForCausalLM"``).
    source : str
        The transformers files the model is read from.
    keys : derive.blocks.hf_config.Keys or None
        The config class's keys (each mapped or inert), where declared.
    config_class : str
        The config class (``"MambaConfig"``); "" where not declared.
    alias_of : str
        The model type whose model this one's configs build, where transformers does not know this
        one (``"kimi_k2"`` -> ``"deepseek_v3"``: a release's own name for a layout transformers builds
        under another); "" for a model type of transformers' own. An alias is not a family of its own
        (:func:`derive.families.family.families` leaves it out).
    """

    model_type: str
    build: Callable[[Mapping[str, Any]], Module]
    architecture: str
    source: str
    keys: Any = None
    config_class: str = ""
    alias_of: str = ""


#: Every model type derive reads from a config, by ``model_type``: the module of a block or family is
#: imported when its model type is first asked for (:class:`derive.engine.lazy.Registry`).
CONFIG_MODELS: Registry[str, ConfigModel] = Registry(
    "config_models",
    convention=lambda model_type: f"derive.families.{model_type}" if model_type.isidentifier() else None,
)


def register_config(
    model_type: str,
    *,
    architecture: str,
    source: str,
    keys: Any = None,
    config_class: str = "",
    alias_of: str = "",
) -> Callable[[Callable[[Mapping[str, Any]], Module]], Callable[[Mapping[str, Any]], Module]]:
    """Register the decorated builder as the reader of ``model_type`` configs.

    Parameters
    ----------
    model_type : str
    architecture : str
    source : str
    keys, config_class, alias_of
        See :class:`ConfigModel`.

    Returns
    -------
    callable
        A decorator returning the builder unchanged.

    Raises
    ------
    ValueError
        ``model_type`` is registered already.
    """

    def decorate(build: Callable[[Mapping[str, Any]], Module]) -> Callable[[Mapping[str, Any]], Module]:
        if model_type in CONFIG_MODELS.loaded():
            raise ValueError(f"model type {model_type!r} is registered already")
        CONFIG_MODELS[model_type] = ConfigModel(model_type, build, architecture, source, keys, config_class, alias_of)
        return build

    return decorate


def config_model(model_type: str) -> ConfigModel:
    """The registered reader of ``model_type``.

    Parameters
    ----------
    model_type : str

    Returns
    -------
    ConfigModel

    Raises
    ------
    ValueError
        A model type derive does not build, naming the ones it does.
    """
    try:
        return CONFIG_MODELS[model_type]
    except (KeyError, TypeError, AttributeError):
        raise ValueError(
            f"model_type {model_type!r} is not one derive builds from a config; known: {sorted(CONFIG_MODELS)}"
        ) from None
