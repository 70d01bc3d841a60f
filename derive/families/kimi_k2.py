"""Kimi-K2 (``model_type`` ``kimi_k2``, moonshotai/Kimi-K2-Instruct): a DeepSeek-V3 layout under a model type
transformers 5.23 does not know.

The release's ``config.json`` says ``"model_type": "kimi_k2"`` and ``auto_map`` points at its own remote code
(``configuration_deepseek.DeepseekV3Config``, ``modeling_deepseek.DeepseekV3ForCausalLM``);
``AutoConfig.for_model("kimi_k2")`` refuses it ("Unrecognized model identifier"). With the model type
changed to ``deepseek_v3``, every other key as released, transformers' ``DeepseekV3ForCausalLM`` builds it
(``tests/families/test_deepseek.py`` holds every tensor of the file as is against that build). derive answers
the file as is with that model (:func:`derive.families.deepseek_v3.deepseek_v3`) and a note; ``kimi_k2`` is
an alias (:attr:`derive.blocks.ConfigModel.alias_of`), no family of its own: its releases are stored with
``deepseek_v3``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import register_config
from ..tree import Module
from .deepseek_v3 import KEYS, SOURCE, deepseek_v3

__all__ = ["NOTE", "kimi_k2"]

#: The report's note on a ``kimi_k2`` config.
NOTE = "kimi_k2 is a deepseek_v3 layout (auto_map remote code); answered as transformers' DeepseekV3 builds it"


def kimi_k2(config: Mapping[str, Any]) -> Module:
    """``DeepseekV3ForCausalLM`` as transformers builds a ``kimi_k2`` config given as ``deepseek_v3``.

    Parameters
    ----------
    config : mapping
        The config's keys (``DeepseekV3Config``'s).

    Returns
    -------
    derive.tree.Module
        With :data:`NOTE` first among its notes.

    Raises
    ------
    ValueError
        What :func:`derive.families.deepseek_v3.deepseek_v3` refuses.
    """
    model = deepseek_v3(config)
    return model.replace(note="\n".join(n for n in (NOTE, model.note) if n))


register_config(
    "kimi_k2", architecture="DeepseekV3ForCausalLM", source=SOURCE, keys=KEYS, config_class="DeepseekV3Config",
    alias_of="deepseek_v3",
)(kimi_k2)  # fmt: skip
