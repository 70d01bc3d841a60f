"""mamba_ssm's own language model, ``MambaLMHeadModel``, from its ``config.json``.

The state-spaces/mamba-* and mamba2-* checkpoints on the Hugging Face Hub carry mamba_ssm's config
format (``d_model``, ``n_layer``, ``ssm_cfg`` ...; no ``model_type``), read by
``MambaLMHeadModel.from_pretrained`` as ``MambaConfig(**config)``. The model: ``backbone.embedding``
(the vocabulary padded up to a multiple of ``pad_vocab_size_multiple``), ``n_layer`` blocks of
``norm`` and ``mixer`` (``Mamba`` or ``Mamba2`` as ``ssm_cfg["layer"]`` says, with the rest of
``ssm_cfg`` as its arguments) and, when ``d_intermediate`` > 0, ``norm2`` and a ``GatedMLP``;
``backbone.norm_f``; ``lm_head``, tied to the embedding when ``tie_embeddings``. The norms are
mamba_ssm's RMSNorm (a weight) when ``rms_norm``, else ``nn.LayerNorm`` (weight and bias).

Sources (mamba-ssm 2.3.2.post1): ``mamba_ssm/models/config_mamba.py`` 4–18,
``models/mixer_seq_simple.py`` 29–82 (``create_block``), 118–173 (``MixerModel``), 215–269
(``MambaLMHeadModel``), ``modules/block.py`` 10–35, ``modules/mlp.py`` 6–27,
``ops/triton/layer_norm.py`` 955–966 (RMSNorm: ``weight``, no bias).

>>> from derive.tree import count
>>> count(lm_head_model({"d_model": 768, "n_layer": 24, "vocab_size": 50277, "ssm_cfg": {}}))  # mamba-130m
129135360
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..engine.constructors import Constructor, register
from ..layers.embedding import embedding
from ..layers.linear import linear
from ..layers.norm import layer_norm, rms_norm
from ..tree import Dim, Module
from . import hf_config, register_config
from ._shapes import Inferred, Shapes, Unreadable, dims, groups_and_state, layer_count, ratio, register_shapes, tied
from .mamba import Mamba
from .mamba2 import Mamba2, mixer_sizes

__all__ = ["KEYS", "lm_head_model", "lm_head_model_keywords", "padded_vocab", "mlp_width"]

#: ``MambaConfig``'s fields and defaults (mamba_ssm/models/config_mamba.py 7–18).
_DEFAULTS: dict[str, Any] = {
    "d_model": 2560,
    "d_intermediate": 0,
    "n_layer": 64,
    "vocab_size": 50277,
    "ssm_cfg": {},
    "attn_layer_idx": [],
    "attn_cfg": {},
    "rms_norm": True,
    "residual_in_fp32": True,
    "fused_add_norm": True,
    "pad_vocab_size_multiple": 8,
    "tie_embeddings": True,
}
#: ``MambaConfig``'s every field at mamba-ssm 2.3.2.post1 (``mamba_ssm/models/config_mamba.py`` 7-18): the ones the
#: model's shapes read with their defaults (``attn_layer_idx`` read to be refused), the others with why they shape
#: nothing. ``MambaConfig`` is a dataclass without ``**kwargs``: a key outside it raises TypeError in
#: ``MambaConfig(**config)`` (``MambaLMHeadModel.from_pretrained``, mixer_seq_simple.py 287-289), and derive refuses
#: it too (:func:`lm_head_model`), naming it — it is never answered with a note.
KEYS = hf_config.Keys(
    "MambaConfig",
    {k: _DEFAULTS[k] for k in ("d_model", "d_intermediate", "n_layer", "vocab_size", "ssm_cfg", "attn_layer_idx",
                               "rms_norm", "pad_vocab_size_multiple", "tie_embeddings")},
    {
        "attn_cfg": "the arguments of the attention layers attn_layer_idx names (mixer_seq_simple.py 50, 62-63), which "
                    "derive refuses: with none, read by nothing",
        "residual_in_fp32": "the residual stream's dtype (modules/block.py 54, 73): no tensor",
        "fused_add_norm": "Triton's fused add + norm kernel or the norm module's forward (mixer_seq_simple.py 147-150, "
                          "modules/block.py 36-40): the same norm weights",
    },
)  # fmt: skip
_SOURCE = (
    "mamba_ssm/models/config_mamba.py 4-18, models/mixer_seq_simple.py 29-82, 118-173, 215-269, "
    "modules/block.py 10-35, modules/mlp.py 6-27 (mamba-ssm 2.3.2.post1)"
)
_LAYERS: dict[str, Callable[..., Module]] = {"Mamba1": Mamba, "Mamba2": Mamba2}


def padded_vocab(vocab_size: Dim, multiple: Dim) -> Dim:
    """The vocabulary rounded up to a multiple of ``pad_vocab_size_multiple`` (mixer_seq_simple.py 239–240).

    Parameters
    ----------
    vocab_size, multiple : int or sympy.Expr

    Returns
    -------
    int or sympy.Expr

    Examples
    --------
    >>> padded_vocab(50277, 8), padded_vocab(50277, 16), padded_vocab(50432, 8)
    (50280, 50288, 50432)
    """
    if type(vocab_size) is int and type(multiple) is int:
        return vocab_size + (-vocab_size) % multiple
    import sympy

    return multiple * sympy.ceiling(vocab_size / multiple)


def mlp_width(d_intermediate: Dim, multiple_of: int = 128) -> Dim:
    """``GatedMLP``'s hidden width: ``d_intermediate`` rounded up to a multiple of 128 (mlp.py 21–24).

    Parameters
    ----------
    d_intermediate : int or sympy.Expr
    multiple_of : int, default 128

    Returns
    -------
    int or sympy.Expr
    """
    if type(d_intermediate) is int:
        return (d_intermediate + multiple_of - 1) // multiple_of * multiple_of
    import sympy

    return multiple_of * sympy.ceiling(d_intermediate / multiple_of)


def _norm(d_model: Dim, rms: bool, name: str) -> Module:
    return rms_norm((d_model,), name=name) if rms else layer_norm((d_model,), name=name)


def _mixer(d_model: Dim, ssm_cfg: Any) -> Module:
    """The mixer ``create_block`` makes: ``Mamba`` or ``Mamba2`` with ``ssm_cfg``'s arguments."""
    if not isinstance(ssm_cfg, Mapping):
        raise ValueError(f"config key 'ssm_cfg' must be an object of mixer arguments, got {ssm_cfg!r}")
    arguments = dict(ssm_cfg)
    layer = arguments.pop("layer", "Mamba1")
    if layer not in _LAYERS:
        raise ValueError(f"config key 'ssm_cfg': layer must be 'Mamba1' or 'Mamba2' (as mamba_ssm), got {layer!r}")
    if "d_model" in arguments or "layer_idx" in arguments:
        raise ValueError("config key 'ssm_cfg' must not set d_model or layer_idx (create_block passes them)")
    try:
        return _LAYERS[layer](d_model, **arguments)
    except (TypeError, ValueError) as error:
        raise ValueError(f"config key 'ssm_cfg' ({layer}): {error}") from None


@register_config("mamba_ssm", architecture="MambaLMHeadModel", source=_SOURCE, keys=KEYS)
def lm_head_model(config: Mapping[str, Any]) -> Module:
    """``MambaLMHeadModel(MambaConfig(**config))`` (the ``model_type`` key, if any, left aside).

    Parameters
    ----------
    config : mapping
        mamba_ssm's config; absent keys take ``MambaConfig``'s defaults. Sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module
        Named as ``model.named_parameters()`` names it (``backbone.embedding.weight`` ...); its
        ``config`` holds the keys that shape it, ``ssm_cfg`` with the mixer's resolved arguments.

    Raises
    ------
    ValueError
        A key that is not a ``MambaConfig`` field (mamba_ssm raises TypeError), attention layers
        (``attn_layer_idx``: not derived), a bad ``ssm_cfg`` or value, naming the key.
    """
    for key in config:
        if key not in KEYS.shape and key not in KEYS.inert and key != "model_type":
            raise ValueError(f"config key {key!r} is not a field of mamba_ssm's MambaConfig (it raises TypeError)")
    c = {**_DEFAULTS, **{k: v for k, v in config.items() if k != "model_type"}}
    if c["attn_layer_idx"]:
        raise ValueError("config key 'attn_layer_idx': mamba_ssm's attention layers (MHA) are not derived")
    D = hf_config.size(c, "d_model")
    L = hf_config.size(c, "n_layer", 0)
    V = padded_vocab(hf_config.size(c, "vocab_size"), hf_config.size(c, "pad_vocab_size_multiple"))
    mlp = hf_config.size(c, "d_intermediate", 0)
    flags = {k: hf_config.flag(c, k) for k in ("rms_norm", "tie_embeddings", "residual_in_fp32", "fused_add_norm")}
    mixer = _mixer(D, c["ssm_cfg"]).replace(name="mixer")
    children: tuple[Module, ...] = (_norm(D, flags["rms_norm"], "norm"), mixer)
    if mlp != 0:
        width = mlp_width(mlp)
        fc = (linear(D, 2 * width, False, name="fc1"), linear(width, D, False, name="fc2"))
        children += (_norm(D, flags["rms_norm"], "norm2"), Module("mlp", "GatedMLP", children=fc))
    block = Module("layers.{k}", "Block", children=children, repeat=L)
    backbone = Module(
        "backbone",
        "MixerModel",
        children=(embedding(V, D, name="embedding"), block, _norm(D, flags["rms_norm"], "norm_f")),
    )
    head = hf_config.lm_head(D, V, "backbone.embedding.weight" if flags["tie_embeddings"] else None)
    ssm = {"layer": c["ssm_cfg"].get("layer", "Mamba1")}
    ssm.update((k, v) for k, v in mixer.config.items() if k != "d_model")
    shape: dict[str, Any] = {"d_model": D, "n_layer": L, "vocab_size": c["vocab_size"]}
    shape["pad_vocab_size_multiple"] = c["pad_vocab_size_multiple"]
    if mlp != 0:
        shape["d_intermediate"] = mlp
    shape.update(rms_norm=flags["rms_norm"], tie_embeddings=flags["tie_embeddings"], ssm_cfg=ssm)
    return Module("", "MambaLMHeadModel", children=(backbone, head), config=shape)


def _config(*args: Any, **kwargs: Any) -> Module:
    """``MambaConfig(...)`` of mamba_ssm (a dataclass: its fields in order, or by name): the model
    ``MambaLMHeadModel`` builds from it."""
    if len(args) > len(_DEFAULTS):
        raise TypeError(f"MambaConfig takes {len(_DEFAULTS)} positional arguments but {len(args)} were given")
    given = dict(zip(_DEFAULTS, args))
    for key, value in kwargs.items():
        if key in given:
            raise TypeError(f"MambaConfig got multiple values for argument {key!r}")
        given[key] = value
    return lm_head_model(given)


_V1_SOURCE = (
    "mamba_ssm/models/mixer_seq_simple.py 21-47 (create_block), 83-131 (MixerModel), 173-206 "
    "(MambaLMHeadModel) (mamba-ssm 1.0.1)"
)


def lm_head_model_keywords(
    d_model: Dim,
    n_layer: Dim,
    vocab_size: Dim,
    initializer_cfg: Any = None,
    pad_vocab_size_multiple: Dim = 1,
    device: Any = None,
    dtype: Any = None,
    *,
    ssm_cfg: Any = None,
    norm_epsilon: Any = 1e-5,
    rms_norm: bool = False,
    fused_add_norm: bool = False,
    residual_in_fp32: bool = False,
    **backbone_kwargs: Any,
) -> Module:
    """mamba_ssm 1.0's ``MambaLMHeadModel(d_model, n_layer, vocab_size, ...)``: the model made from
    keywords, before ``MambaConfig`` (1.1 and later take a config; this signature raises TypeError there).

    Its defaults are not ``MambaConfig``'s: ``nn.LayerNorm`` (weight and bias: ``rms_norm=False``), the
    vocabulary not padded (``pad_vocab_size_multiple=1``), ``lm_head`` always tied to the embedding;
    the other keywords are ``MixerModel``'s (mamba-ssm 1.0.1, ``models/mixer_seq_simple.py`` 21–47,
    83–131, 173–206).

    Parameters
    ----------
    d_model, n_layer, vocab_size : int or sympy.Expr
    initializer_cfg, device, dtype, norm_epsilon, fused_add_norm, residual_in_fp32 : optional
        Change no tensor.
    pad_vocab_size_multiple : int, default 1
    ssm_cfg : dict, optional
        The ``Mamba`` mixer's arguments (1.0 has no ``Mamba2``: no ``layer`` key).
    rms_norm : bool, default False
    **backbone_kwargs
        Any other keyword: refused, as ``MixerModel`` refuses it.

    Returns
    -------
    derive.tree.Module
        As :func:`lm_head_model`.

    Raises
    ------
    TypeError
        A keyword ``MixerModel`` does not take (``MambaConfig``'s later fields named as such).
    ValueError
        An ``ssm_cfg`` that is no dict or has a ``layer`` key (mamba_ssm 2's), and :func:`lm_head_model`'s
        refusals.

    Examples
    --------
    >>> from derive.tree import count
    >>> count(lm_head_model_keywords(d_model=2560, n_layer=32, vocab_size=50432))  # LayerNorms: 33 biases more
    1449006080
    """
    for key in backbone_kwargs:
        later = f" (a field of MambaConfig, mamba_ssm 1.1 and later: MambaLMHeadModel(MambaConfig({key}=...)))"
        raise TypeError(
            f"mamba_ssm 1.0's MixerModel got an unexpected keyword argument {key!r}{later * (key in _DEFAULTS)}"
        )
    if ssm_cfg is not None and not isinstance(ssm_cfg, Mapping):
        raise ValueError(f"ssm_cfg must be a dict of the Mamba mixer's arguments, got {ssm_cfg!r}")
    mixer = dict(ssm_cfg or {})
    if "layer" in mixer:
        raise ValueError(
            "ssm_cfg 'layer' is mamba_ssm 2's: 1.0's MambaLMHeadModel(d_model=...) makes Mamba mixers only"
        )
    config = {"d_model": d_model, "n_layer": n_layer, "vocab_size": vocab_size, "ssm_cfg": mixer}
    config.update(pad_vocab_size_multiple=pad_vocab_size_multiple, rms_norm=rms_norm, tie_embeddings=True)
    return lm_head_model(config)


register(
    Constructor(
        "mamba_ssm",
        "MambaLMHeadModel",
        lm_head_model_keywords,
        prefixes=("", "mamba_ssm.", "mamba_ssm.models.mixer_seq_simple."),
        module_types=("mamba_ssm.models.mixer_seq_simple",),
        source=_V1_SOURCE,
    )
)

register(
    Constructor(
        "mamba_ssm",
        "MambaConfig",
        _config,
        prefixes=("mamba_ssm.models.config_mamba.",),
        module_types=("mamba_ssm.models.config_mamba",),
        source="mamba_ssm/models/config_mamba.py 4-18 (mamba-ssm 2.3.2.post1)",
    )
)


# --------------------------------------------------------------------------- the way back: a checkpoint's tensors -> the config


@register_shapes("MambaLMHeadModel")
def mamba_ssm_lm(shapes: Shapes, ties: Mapping[str, str]) -> Inferred | None:
    """mamba_ssm's ``MambaLMHeadModel`` (``backbone.embedding``; Mamba or Mamba-2 mixers).

    Parameters
    ----------
    shapes : mapping of str -> tuple of int
        The checkpoint's tensors, by name.
    ties : mapping of str -> str
        Tensor name -> the name it shares its storage with.

    Returns
    -------
    Inferred or None
        The inferred config, or None when the tensors are not this model's.

    Raises
    ------
    Unreadable
        The tensors are this model's but do not give its config (the message says why).
    """
    if "backbone.embedding.weight" not in shapes or "backbone.layers.0.mixer.A_log" not in shapes:
        return None
    m = "backbone.layers.0.mixer."
    vocab, d = dims(shapes, "backbone.embedding.weight", 2)
    notes = []
    if vocab % 8:
        pad, ssm_note = 1, "pad_vocab_size_multiple=1 (the embedding's rows are no multiple of 8)"
    else:
        pad, ssm_note = 8, f"vocab_size: any value the padding to a multiple of 8 takes to {vocab:,}"
    notes.append(f"the embedding has {vocab:,} rows; {ssm_note}")
    ssm: dict[str, Any]
    if m + "x_proj.weight" in shapes:
        e, n = dims(shapes, m + "A_log", 2)
        expand = ratio(e, d)
        ssm = {"layer": "Mamba1", "d_state": n, "d_conv": dims(shapes, m + "conv1d.weight", 3)[2]}
        ssm["expand"] = expand if expand is not None else e / d
        ssm["dt_rank"] = dims(shapes, m + "dt_proj.weight", 2)[1]
    else:
        s = mixer_sizes(shapes, m)
        expand = ratio(s["e"], d)
        if expand is None:
            raise Unreadable(f"the inner width {s['e']:,} is not expand × d_model (Mamba2 takes an int)")
        groups, state, note = groups_and_state(s["gn"], 128)
        if s["d_ssm"] % s["h"]:
            raise Unreadable(f"{m}A_log has {s['h']} heads: they do not divide the SSM width {s['d_ssm']:,}")
        ssm = {"layer": "Mamba2", "d_state": state, "d_conv": s["k"], "expand": expand, "ngroups": groups}
        ssm.update(headdim=s["d_ssm"] // s["h"], D_has_hdim=s["skip"] != s["h"], rmsnorm=m + "norm.weight" in shapes)
        if s["d_ssm"] != s["e"]:
            ssm["d_ssm"] = s["d_ssm"]
        notes.append(f"ssm_cfg ngroups, d_state: {note}")
    ssm["conv_bias"], ssm["bias"] = m + "conv1d.bias" in shapes, m + "in_proj.bias" in shapes
    config: dict[str, Any] = {
        "d_model": d,
        "n_layer": layer_count(shapes, "backbone.layers."),
        "vocab_size": vocab,
        "pad_vocab_size_multiple": pad,
        "ssm_cfg": ssm,
        "rms_norm": "backbone.norm_f.bias" not in shapes,
        "tie_embeddings": tied(shapes, ties, "lm_head.weight", "backbone.embedding.weight"),
    }
    if "backbone.layers.0.mlp.fc2.weight" in shapes:
        config["d_intermediate"] = dims(shapes, "backbone.layers.0.mlp.fc2.weight", 2)[1]
    return Inferred("mamba_ssm", config, notes, embedding="backbone.embedding.weight")
