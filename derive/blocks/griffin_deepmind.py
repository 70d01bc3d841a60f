"""DeepMind's ``recurrentgemma`` (PyTorch) spelling of Griffin and Hawk: the model ``Griffin(GriffinConfig(...))``
builds, named as its checkpoints name it, its presets, and the modules users construct (``RGLRU``,
``RecurrentBlock``, ``LocalAttentionBlock``, ``MLPBlock``). The layers are those of
:mod:`derive.blocks.griffin` in DeepMind's names: a ``Conv1D`` of ``w`` (K, W) and ``b``; the
RG-LRU's ``a_param`` and ``BlockDiagonalLinear`` gates ``input_gate`` and ``a_gate``; one key/value
head; the MLP's gate and up maps one ``Einsum`` (``ffw_up.w`` (2, D, F)); RMSNorms with ``scale``; no
output layer (the embedding is read back).

Sources: google-deepmind/recurrentgemma ``recurrentgemma/torch/griffin.py`` 30–79, ``modules.py``
294–367, 496–560, 683–722, 755–832, 946–975, ``layers.py`` 30–115, 233–280, 379–412, ``common.py`` 46–151.

>>> griffin(256000, 2560, 7680, 10, ["recurrent", "recurrent", "attention"] * 8 + ["recurrent"] * 2).count
2682862080
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine.constructors import Constructor, register
from ..tree import Dim, Module, Param
from .griffin import SOURCE, attention_block, layer_types, mlp_block, recurrent_block, rg_lru

__all__ = ["PRESETS", "griffin"]


#: DeepMind's presets (``common.py`` 46–114), with ``vocab_size`` 256000 (``from_preset``, 168).
PRESETS: dict[str, dict[str, Any]] = {
    "GRIFFIN_PAPER_7B": {"width": 4096, "mlp_expanded_width": 3 * 4096, "num_heads": 32, "lru_width": 5632,
                         "block_types": ("recurrent", "recurrent", "attention"), "num_layers": 32},
    "HAWK_PAPER_7B": {"width": 4096, "mlp_expanded_width": 3 * 4096, "num_heads": 32, "lru_width": 5632,
                      "block_types": ("recurrent",), "num_layers": 32},
    "RECURRENT_GEMMA_2B_V1": {"width": 2560, "mlp_expanded_width": 3 * 2560, "num_heads": 10, "lru_width": 2560,
                              "block_types": ("recurrent", "recurrent", "attention"), "num_layers": 26},
    "RECURRENT_GEMMA_9B_V1": {"width": 4096, "mlp_expanded_width": 3 * 4096, "num_heads": 16, "lru_width": 4096,
                              "block_types": ("recurrent", "recurrent", "attention"), "num_layers": 38},
}  # fmt: skip


def griffin(vocab_size: Dim, width: Dim, mlp_expanded_width: Dim, num_heads: Dim, block_types: Sequence[str],
            lru_width: Dim | None = None, conv1d_temporal_width: Dim = 4) -> Module:  # fmt: skip
    """DeepMind's ``Griffin(GriffinConfig(...))`` (``recurrentgemma/torch/griffin.py`` 30–79), named as
    its checkpoints name it (``embedder.input_embedding``, ``blocks.0.recurrent_block.rg_lru.a_param``).

    Parameters
    ----------
    vocab_size, width, mlp_expanded_width, num_heads : int
        V, D, F and H.
    block_types : sequence of {"recurrent", "attention"}
        One entry per layer (``GriffinConfig.block_types``).
    lru_width : int, optional
        W (default D).
    conv1d_temporal_width : int, default 4

    Returns
    -------
    derive.tree.Module
        The count transformers gives for the same model with ``num_key_value_heads=1`` and
        ``intermediate_size = 2F`` (the embedding doubles as the output layer).

    """
    d, w = width, width if lru_width is None else lru_width
    blocks = []
    for i, kind in enumerate(layer_types(block_types, len(block_types))):
        if kind == "recurrent":
            temporal = recurrent_block(
                d, num_heads, w, conv1d_temporal_width, spelling="deepmind", name="recurrent_block"
            )
        else:
            temporal = attention_block(d, num_heads, spelling="deepmind", name="attention_block")
        norm = lambda n: Module(n, "RMSNorm", (Param("scale", (d,)),))  # noqa: E731
        blocks.append(Module(str(i), "ResidualBlock", children=(norm("temporal_pre_norm"), temporal, norm("channel_pre_norm"),
                                                                mlp_block(d, mlp_expanded_width, spelling="deepmind")), row=True))  # fmt: skip
    embedder = Module("embedder", "Embedder", (Param("input_embedding", (vocab_size, d)),))
    final = Module("final_norm", "RMSNorm", (Param("scale", (d,)),))
    return Module("", "Griffin", children=(embedder, Module("blocks", "ModuleList", children=tuple(blocks)), final))


def _deepmind(make: Any) -> Any:
    """A DeepMind module constructor taking (and ignoring) ``final_w_init_variance_scale``, ``device``, ``dtype``."""

    def construct(*args: Any, final_w_init_variance_scale: float = 1.0, w_init_variance_scale: float = 1.0,
                  device: Any = None, dtype: Any = None, **kwargs: Any) -> Module:  # fmt: skip
        return make(*args, **kwargs)

    construct.__doc__ = make.__doc__
    return construct


for _name, _make, _letters in (
    ("RGLRU", lambda width, num_heads: rg_lru(width, num_heads, spelling="deepmind", name=""), {"width": "W", "num_heads": "H"}),
    ("RecurrentBlock", lambda width, num_heads, lru_width=None, conv1d_temporal_width=4: recurrent_block(
        width, num_heads, lru_width, conv1d_temporal_width, spelling="deepmind", name=""),
     {"width": "D", "num_heads": "H", "lru_width": "W", "conv1d_temporal_width": "K"}),
    ("LocalAttentionBlock", lambda width, num_heads, window_size: attention_block(width, num_heads, spelling="deepmind", name=""),
     {"width": "D", "num_heads": "H"}),
    ("MLPBlock", lambda width, expanded_width: mlp_block(width, expanded_width, spelling="deepmind", name=""),
     {"width": "D", "expanded_width": "F"}),
):  # fmt: skip
    _module = "recurrentgemma.torch." + (
        "layers" if _name == "RGLRU" else "modules"
    )  # recurrentgemma/torch/__init__.py
    register(Constructor("recurrentgemma", _name, _deepmind(_make), prefixes=("", "layers.", "modules.", f"{_module}."),
                         letters=_letters, module_types=(_module,), source=SOURCE["deepmind"]))  # fmt: skip
