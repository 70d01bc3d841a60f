"""Gemma 3 with its vision tower (``model_type`` ``gemma3``, Gemma-3 4B/12B/27B): what
``AutoModelForCausalLM.from_config`` builds for a ``Gemma3Config`` — ``Gemma3ForConditionalGeneration``
(``MODEL_FOR_CAUSAL_LM_MAPPING``'s ``gemma3`` entry), not the text-only ``Gemma3ForCausalLM``.

``Gemma3ForConditionalGeneration`` (``models/gemma3/modeling_gemma3.py`` 650-665
``Gemma3MultiModalProjector``, 762-771 ``Gemma3Model``, 921-928): ``model`` holds

- ``vision_tower``, ``AutoModel.from_config(vision_config)``: a ``SiglipVisionModel``
  (``models/siglip/modeling_siglip.py`` 116-134 ``SiglipVisionEmbeddings``: ``patch_embedding`` a
  biased Conv2d(``num_channels``, D, ``patch_size``, stride ``patch_size``), ``position_embedding`` of
  (``image_size // patch_size``)² rows and the int64 buffer ``position_ids`` (1, that many), not
  persistent; 250-271 ``SiglipAttention``, q/k/v/out biased; 310-316 ``SiglipMLP`` fc1/fc2 biased; 325-331
  ``SiglipEncoderLayer`` with ``layer_norm1``/``layer_norm2``; 553-570 ``post_layernorm`` and, when
  ``vision_use_head`` — ``SiglipVisionConfig``'s default true, the releases' false —, 622-631
  ``SiglipMultiheadAttentionPoolingHead``: ``probe`` (1, 1, D), a ``torch.nn.MultiheadAttention``
  (``in_proj_weight`` (3D, D), ``in_proj_bias``, ``out_proj``), ``layernorm`` and an MLP);
- ``multi_modal_projector``: ``mm_input_projection_weight`` (D_vision, D_text) and ``mm_soft_emb_norm``, a
  ``Gemma3RMSNorm`` of D_vision; its ``AvgPool2d`` holds nothing;
- ``language_model``: ``Gemma3TextModel`` of ``text_config``, as :func:`derive.families.gemma.gemma3_text`
  builds it;

and ``lm_head``, tied to ``model.language_model.embed_tokens.weight`` by the top-level
``tie_word_embeddings`` (the text config's own is not read). A text token's forward runs the language
model and the head: the vision tower and the projector cost it nothing, and the cache is the text
model's (``DynamicCache`` of the text config). The vision tower is placed in the part "vision".

>>> from derive.tree import count
>>> count(gemma3({}))   # Gemma3Config(): Gemma3TextConfig() and SiglipVisionConfig(), its pooling head built
2723312896
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..blocks import hf_config
from ..layers.embedding import embedding
from ..layers.linear import linear
from ..layers.norm import layer_norm, rms_norm
from ..layers.token_flops import register
from ..tree import Dim, Module, Param
from .decoder import floordiv
from .family import Keys, register_family
from .gemma import gemma3_text

__all__ = ["KEYS", "VISION_KEYS", "gemma3", "siglip_vision_model"]

#: ``Gemma3Config``'s every key at transformers 5.23.0: the shape keys with their defaults, and the others with why they shape nothing.
KEYS = Keys(
    "Gemma3Config",
    {
        "text_config": None,
        "vision_config": None,
        "mm_tokens_per_image": 256,
        "tie_word_embeddings": True,
    },
    {
        "boi_token_index": "a token id (the start of an image): no tensor",
        "eoi_token_index": "a token id (the end of an image): no tensor",
        "image_token_index": "a token id (an image's placeholder): no tensor",
    },
    aliases={
        "image_token_id": "image_token_index",
        "boi_token_id": "boi_token_index",
        "eoi_token_id": "eoi_token_index",
    },
)
#: ``SiglipVisionConfig``'s keys at transformers 5.23.0 (``configuration_siglip.py`` 90-103).
VISION_KEYS = Keys(
    "SiglipVisionConfig",
    {
        "hidden_size": 768,
        "intermediate_size": 3072,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "num_channels": 3,
        "image_size": 224,
        "patch_size": 16,
        "vision_use_head": True,
    },
    {
        "layer_norm_eps": "an epsilon of the norms",
        "attention_dropout": "dropout, off at inference: no tensor",
    },
)
_SOURCE = (
    "transformers/models/gemma3/configuration_gemma3.py 162-213, modeling_gemma3.py 650-665, 762-771, 921-928; "
    "models/siglip/modeling_siglip.py 116-134, 250-331, 553-570, 622-631"
)


def _no_flops(module: Module, tokens: Dim) -> Any:
    return 0  # a text token does not pass through it


register("SiglipVisionModel", _no_flops)
register("Gemma3MultiModalProjector", _no_flops)


def _vision_config(config: Mapping[str, Any]) -> dict[str, Any]:
    vision = config.get("vision_config")
    if vision is None:
        vision = {}
    if not isinstance(vision, Mapping):
        raise ValueError(f"config key 'vision_config' must be an object, got {vision!r:.60}")
    kind = vision.get("model_type", "siglip_vision_model")
    if kind != "siglip_vision_model":
        raise ValueError(f"config key 'vision_config': model_type {kind!r} is not derived (only siglip_vision_model)")
    return VISION_KEYS.resolve(vision)


def siglip_vision_model(v: Mapping[str, Any], name: str = "vision_tower") -> Module:
    """``SiglipVisionModel`` of a resolved ``SiglipVisionConfig`` (see the module's docstring).

    Parameters
    ----------
    v : mapping
        The resolved vision config (:data:`VISION_KEYS`).
    name : str
        Its name in the model.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        Heads not dividing the width (``SiglipAttention`` refuses it), an image or patch size that is not
        an int (``image_size // patch_size`` of a list fails), naming the key.
    """
    D, F = hf_config.size(v, "hidden_size"), hf_config.size(v, "intermediate_size")
    L, H = hf_config.size(v, "num_hidden_layers", 0), hf_config.size(v, "num_attention_heads")
    C, image, patch = (hf_config.size(v, k) for k in ("num_channels", "image_size", "patch_size"))
    head = hf_config.flag(v, "vision_use_head")
    if type(D) is int and type(H) is int and D % H:
        raise ValueError(f"vision_config key 'num_attention_heads' ({H}) must divide hidden_size ({D})")
    n = floordiv(image, patch) ** 2
    conv = Module("patch_embedding", "Conv2d", (Param("weight", (D, C, patch, patch)), Param("bias", (D,))))
    embeddings = Module(
        "embeddings",
        "SiglipVisionEmbeddings",
        (Param("position_ids", (1, n), buffer=True, dtype="int64"),),
        children=(conv, embedding(n, D, name="position_embedding")),
    )
    norm = lambda name: layer_norm((D,), name=name)  # noqa: E731
    mlp = lambda: Module("mlp", "SiglipMLP", children=(linear(D, F, name="fc1"), linear(F, D, name="fc2")))  # noqa: E731
    attn = Module(
        "self_attn",
        "SiglipAttention",
        children=tuple(linear(D, D, name=p) for p in ("k_proj", "v_proj", "q_proj", "out_proj")),
    )
    layer = Module(
        "{k}", "SiglipEncoderLayer", children=(norm("layer_norm1"), attn, norm("layer_norm2"), mlp()), repeat=L
    )
    encoder = Module("encoder", "SiglipEncoder", children=(Module("layers", "ModuleList", children=(layer,)),))
    children: tuple[Module, ...] = (embeddings, encoder, norm("post_layernorm"))
    if head:
        pool = Module("attention", "MultiheadAttention", (Param("in_proj_weight", (3 * D, D)), Param("in_proj_bias", (3 * D,))),
                      children=(linear(D, D, name="out_proj", type="NonDynamicallyQuantizableLinear"),))  # fmt: skip
        children += (
            Module("head", "SiglipMultiheadAttentionPoolingHead", (Param("probe", (1, 1, D)),),
                   children=(pool, norm("layernorm"), mlp())),
        )  # fmt: skip
    return Module(name, "SiglipVisionModel", children=children, part="vision")


def gemma3(config: Mapping[str, Any]) -> Module:
    """``Gemma3ForConditionalGeneration`` as ``AutoModelForCausalLM.from_config`` builds it for a ``Gemma3Config``.

    Parameters
    ----------
    config : mapping
        Absent keys at ``Gemma3Config``'s defaults: ``text_config`` at ``Gemma3TextConfig``'s,
        ``vision_config`` at ``SiglipVisionConfig``'s; the text model's sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module

    Raises
    ------
    ValueError
        A vision config other than SigLIP's, an ``mm_tokens_per_image`` below 1 (``patches // int(0 ** 0.5)``
        fails in transformers; a pooling kernel of 0, ``Gemma3Config()``'s own, builds and is answered), or what :func:`~derive.families.gemma.gemma3_text` and
        :func:`siglip_vision_model` refuse, naming the key.
    """
    c = KEYS.resolve(config)
    text_config = c["text_config"] if c["text_config"] is not None else {}
    if not isinstance(text_config, Mapping):
        raise ValueError(f"config key 'text_config' must be an object, got {text_config!r:.60}")
    kind = text_config.get("model_type", "gemma3_text")
    if kind != "gemma3_text":
        raise ValueError(f"config key 'text_config': model_type {kind!r} is not derived (only gemma3_text)")
    text = gemma3_text({k: v for k, v in text_config.items() if k != "model_type"})
    v = _vision_config(config)
    tokens = c["mm_tokens_per_image"]
    if isinstance(tokens, bool) or type(tokens) is not int or tokens < 1:
        raise ValueError(f"config key 'mm_tokens_per_image' must be an int >= 1, got {tokens!r}")
    tie = hf_config.flag(c, "tie_word_embeddings")
    language = text.children[0].replace(name="language_model")
    D, V = text.config["hidden_size"], text.config["vocab_size"]
    Dv = hf_config.size(v, "hidden_size")
    projector = Module(
        "multi_modal_projector",
        "Gemma3MultiModalProjector",
        (Param("mm_input_projection_weight", (Dv, D)),),
        children=(rms_norm((Dv,), name="mm_soft_emb_norm", type="Gemma3RMSNorm"),),
        part="vision",
    )
    model = Module("model", "Gemma3Model", children=(siglip_vision_model(v), projector, language))
    head = hf_config.lm_head(D, V, "model.language_model.embed_tokens.weight" if tie else None)
    vision_shape = {k: v[k] for k in VISION_KEYS.shape}
    shape = {
        "text_config": dict(text.config),
        "vision_config": {**vision_shape, "_fixed": tuple(vision_shape)},
        "mm_tokens_per_image": tokens,
        "tie_word_embeddings": tie,
        "_fixed": ("mm_tokens_per_image",),
    }
    return Module("", "Gemma3ForConditionalGeneration", children=(model, head), config=shape)


register_family("gemma3", "Gemma3Config", "Gemma3ForConditionalGeneration", gemma3, _SOURCE, keys=KEYS)
