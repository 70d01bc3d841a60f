"""Llama 4 (``model_type`` ``llama4``), the multimodal wrapper: what ``AutoModelForCausalLM.from_config`` builds of
it is its text model alone.

``AutoModelForCausalLM`` maps ``llama4`` to ``Llama4ForCausalLM`` (``models/auto/modeling_auto.py``), which it
builds of the config's ``text_config`` (a ``Llama4TextConfig``: :mod:`derive.families.llama4_text`); the vision
model and its projector (``vision_config``, ``Llama4ForConditionalGeneration``) are not built: a not-counted part
(:func:`derive.families.decoder.not_built_tower`), so the total is marked partial.
``Llama4Config`` (``configuration_llama4.py`` 196-236): ``text_config`` and ``vision_config`` (null: the
classes' defaults), the image tokens' indices, and a ``tie_word_embeddings`` the text model does not read (it
ties by ``text_config``'s own). A text key at the top level is kept by the wrapper and never read.

>>> from derive.tree import count
>>> count(llama4({})) == count(llama4({"text_config": {}}))   # Llama4Config(): Scout's text model
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..tree import Module
from .decoder import not_built_tower
from .family import Keys, register_family
from .llama4_text import KEYS as TEXT_KEYS
from .llama4_text import llama4_text

__all__ = ["KEYS", "llama4"]

_TOP = "at the top level a key the wrapper keeps and never reads: the text model reads text_config's"
#: ``Llama4Config``'s every key at transformers 5.23.0, and the text model's keys its modeling code reads (off
#: ``text_config``, inert at the top level).
KEYS = Keys(
    "Llama4Config",
    {"text_config": None},
    {
        **dict.fromkeys((*TEXT_KEYS.shape, *TEXT_KEYS.inert), _TOP),
        **TEXT_KEYS.inert,
        "vision_config": "the vision model's config: Llama4ForCausalLM builds no vision model (not counted)",
        "boi_token_index": "a token id: no tensor",
        "eoi_token_index": "a token id: no tensor",
        "image_token_index": "a token id: no tensor",
        "tie_word_embeddings": "the wrapper's: Llama4ForCausalLM ties by text_config's tie_word_embeddings",
    },
    aliases={
        "image_token_id": "image_token_index",
        "boi_token_id": "boi_token_index",
        "eoi_token_id": "eoi_token_index",
    },
)
_SOURCE = (
    "transformers/models/llama4/configuration_llama4.py 196-236, modeling_llama4.py 568-583; "
    "models/auto/modeling_auto.py (llama4 -> Llama4ForCausalLM); see derive.families.llama4_text"
)


def llama4(config: Mapping[str, Any]) -> Module:
    """``Llama4ForCausalLM`` of a ``Llama4Config``'s ``text_config``, as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Llama4Config``'s defaults (``text_config`` absent or null: ``Llama4TextConfig()``).

    Returns
    -------
    derive.tree.Module
        The text model with a not-counted vision tower (the total is partial); its config
        ``{"text_config": ...}``, the text model's keys.

    Raises
    ------
    ValueError
        A ``text_config`` that is not an object, or one :func:`~derive.families.llama4_text.llama4_text` refuses.
    """
    c = KEYS.resolve(config)
    text = c["text_config"]
    if text is None:
        text = {}
    if not isinstance(text, Mapping):
        raise ValueError(f"config key 'text_config' must be an object, got {text!r:.60}")
    model = llama4_text(text)
    return model.replace(
        config={"text_config": dict(model.config)},
        children=(*model.children, not_built_tower("vision_config", "Llama4ForCausalLM")),
    )


register_family("llama4", "Llama4Config", "Llama4ForCausalLM", llama4, _SOURCE, keys=KEYS)
