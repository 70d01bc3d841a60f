"""Qwen3.5 and Qwen3.6 as released (``model_type`` ``qwen3_5``, ``qwen3_5_moe``): the multimodal wrapper, of
which ``AutoModelForCausalLM.from_config`` builds the text model alone.

``AutoModelForCausalLM`` maps ``qwen3_5`` to ``Qwen3_5ForCausalLM`` and ``qwen3_5_moe`` to
``Qwen3_5MoeForCausalLM`` (``models/auto/modeling_auto.py``), built of the config's ``text_config`` (a
``Qwen3_5TextConfig`` / ``Qwen3_5MoeTextConfig``: :mod:`derive.families.qwen3_next`, Gated DeltaNet and gated
attention layers). ``Qwen3_5Config`` (``configuration_qwen3_5.py`` 171-190; ``Qwen3_5MoeConfig`` alike) holds
``text_config``, ``vision_config``, four token ids and a ``tie_word_embeddings`` the text model does not read:
it ties by ``text_config``'s own (measured on transformers 5.23.0: the top-level value changes nothing). The
vision tower (``Qwen3_5VisionModel`` of ``Qwen3_5ForConditionalGeneration``) is not built — the causal-LM class
skips the released checkpoint's ``model.visual.*`` and ``mtp.*`` weights on load
(``_keys_to_ignore_on_load_unexpected``, ``modeling_qwen3_5.py`` 1656) — so it is a not-counted part and the
total is marked partial. A text key at the top level is kept by the wrapper and never read.

>>> from derive.tree import count, is_partial
>>> model = qwen3_5({})   # Qwen3_5Config(): Qwen3_5TextConfig()'s text model
>>> count(model) == count(qwen3_5({"text_config": {}})), is_partial(model)
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..tree import Module
from .decoder import not_built_tower
from .family import Keys, register_family
from .qwen3_next import VARIANTS, build

__all__ = ["KEYS", "MOE_KEYS", "qwen3_5", "qwen3_5_moe"]

_INERT = {
    "vision_config": "the vision tower's config: the causal-LM class builds no vision tower (a not-counted part)",
    "image_token_id": "a token id: no tensor",
    "video_token_id": "a token id: no tensor",
    "vision_start_token_id": "a token id: no tensor",
    "vision_end_token_id": "a token id: no tensor",
    "tie_word_embeddings": "the wrapper's: the text model ties by text_config's tie_word_embeddings",
}
#: ``Qwen3_5Config``'s every key at transformers 5.23.0 (``configuration_qwen3_5.py`` 171-190).
KEYS = Keys("Qwen3_5Config", {"text_config": None}, _INERT)
#: ``Qwen3_5MoeConfig``'s every key at transformers 5.23.0 (``configuration_qwen3_5_moe.py``).
MOE_KEYS = Keys("Qwen3_5MoeConfig", {"text_config": None}, _INERT)
_SOURCE = (
    "transformers/models/qwen3_5/configuration_qwen3_5.py 171-190, modeling_qwen3_5.py 1650-1662; "
    "models/qwen3_5_moe (alike); models/auto/modeling_auto.py (qwen3_5 -> Qwen3_5ForCausalLM); see "
    "derive.families.qwen3_next"
)


def _wrapped(config: Mapping[str, Any], keys: Keys, text_type: str, architecture: str) -> Module:
    c = keys.resolve(config)
    text = c["text_config"]
    if text is None:
        text = {}
    if not isinstance(text, Mapping):
        raise ValueError(f"config key 'text_config' must be an object, got {text!r:.60}")
    kind = text.get("model_type", text_type)
    if kind != text_type:
        raise ValueError(f"config key 'text_config': model_type {kind!r} is not derived here (only {text_type})")
    model = build({k: v for k, v in text.items() if k != "model_type"}, VARIANTS[text_type])
    return model.replace(
        config={"text_config": dict(model.config)},
        children=(*model.children, not_built_tower("vision_config", architecture)),
    )


def qwen3_5(config: Mapping[str, Any]) -> Module:
    """``Qwen3_5ForCausalLM`` of a ``Qwen3_5Config``'s ``text_config``, as ``AutoModelForCausalLM.from_config`` builds it.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Qwen3_5Config``'s defaults (``text_config`` absent or null: ``Qwen3_5TextConfig()``).

    Returns
    -------
    derive.tree.Module
        The text model with a not-counted vision tower (the total is partial); its config
        ``{"text_config": ...}``.

    Raises
    ------
    ValueError
        A ``text_config`` that is not an object or of another model type, or one the text model refuses
        (:func:`derive.families.qwen3_next.build`), naming the key.
    """
    return _wrapped(config, KEYS, "qwen3_5_text", "Qwen3_5ForCausalLM")


def qwen3_5_moe(config: Mapping[str, Any]) -> Module:
    """``Qwen3_5MoeForCausalLM`` of a ``Qwen3_5MoeConfig``'s ``text_config`` (see :func:`qwen3_5`).

    Parameters
    ----------
    config : mapping
        Absent keys at ``Qwen3_5MoeConfig``'s defaults.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        As :func:`qwen3_5`.
    """
    return _wrapped(config, MOE_KEYS, "qwen3_5_moe_text", "Qwen3_5MoeForCausalLM")


register_family("qwen3_5", "Qwen3_5Config", "Qwen3_5ForCausalLM", qwen3_5, _SOURCE, keys=KEYS)
register_family(
    "qwen3_5_moe",
    "Qwen3_5MoeConfig",
    "Qwen3_5MoeForCausalLM",
    qwen3_5_moe,
    _SOURCE,
    package="qwen3_5_moe",
    keys=MOE_KEYS,
)
