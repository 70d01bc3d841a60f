"""The configs of block models, read back from their tensors' names and shapes.

One reader per checkpoint format — transformers' ``MambaForCausalLM`` (and FalconMamba's, whose
saved tensors are the same), ``Mamba2ForCausalLM``, ``RwkvForCausalLM``,
``RecurrentGemmaForCausalLM`` and mamba_ssm's ``MambaLMHeadModel`` (the state-spaces/mamba-*
checkpoints) — each recognising its model by a few tensor names and giving the config keys the
shapes fix, as the config reader (:data:`derive.blocks.CONFIG_MODELS`) takes them. What the shapes
cannot tell apart is said in a note, with the value taken (Mamba-2's ``n_groups`` and
``state_size`` appear only as their product). :mod:`derive.models.block_infer` rebuilds the model
from the config and accepts it only if every tensor is reproduced.

The sizes are read where the modelling files put them (transformers 5.23.0): Mamba's ``A_log``
(E, N), ``conv1d.weight`` (E, 1, K), ``dt_proj.weight`` (E, R) (``modeling_mamba.py`` 284–333);
Mamba-2's ``A_log`` (H), ``conv1d`` (E + 2GN channels), ``in_proj`` (2E + 2GN + H rows),
``out_proj`` (D, E) (``modeling_mamba2.py`` 373–440); RWKV's ``time_decay`` (A), ``feed_forward.key``
(F, D) (``modeling_rwkv.py`` 217–303); RecurrentGemma's ``rg_lru.input_gate_weight`` (H, W/H, W/H),
``q_proj``/``k_proj`` (H·d, D)/(H_kv·d, D), ``mlp_block.gate_proj`` (F/2, D)
(``modeling_recurrent_gemma.py`` 391–479).

>>> found = read({"rwkv.embeddings.weight": (100, 32), "rwkv.blocks.0.attention.time_decay": (32,),
...               "rwkv.blocks.0.feed_forward.key.weight": (128, 32), "head.weight": (100, 32)}, {})
>>> found.model_type, found.config["intermediate_size"], found.config["tie_word_embeddings"]
('rwkv', 128, False)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Inferred", "Unreadable", "read", "READERS"]

Shapes = Mapping[str, tuple]


class Unreadable(ValueError):
    """The tensors look like a block model's but do not give its config (the reason is the message)."""


@dataclass
class Inferred:
    """A config read back from tensor shapes.

    Attributes
    ----------
    model_type : str
        The config reader's key (``"mamba"``, ``"mamba_ssm"``).
    config : dict
        The keys the shapes fix (with ``model_type``), as the config reader takes them.
    notes : list of str
        What the shapes cannot tell, and the value taken.
    head : str
        The output projection's name (``lm_head.weight``), for the note on tied weights.
    embedding : str
        The embedding's name.
    """

    model_type: str
    config: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    head: str = "lm_head.weight"
    embedding: str = ""


def _shape(shapes: Shapes, name: str, ndim: int) -> tuple:
    shape = shapes.get(name)
    if shape is None:
        raise Unreadable(f"{name} is missing")
    if len(shape) != ndim:
        raise Unreadable(f"{name} has {len(shape)} dimensions, not {ndim}")
    return tuple(shape)


def layer_count(shapes: Shapes, prefix: str) -> int:
    """The number of layers ``prefix{i}.`` among the names: indices 0 … L-1, none missing.

    Parameters
    ----------
    shapes : mapping of str to tuple
    prefix : str
        ``"backbone.layers."``.

    Returns
    -------
    int

    Raises
    ------
    Unreadable
        A gap in the indices (a layer missing).

    Examples
    --------
    >>> layer_count({"m.layers.0.w": (1,), "m.layers.1.w": (1,)}, "m.layers.")
    2
    """
    pattern = re.compile(re.escape(prefix) + r"(\d+)\.")
    found = {int(m[1]) for m in map(pattern.match, shapes) if m}
    if found != set(range(len(found))):
        missing = next(i for i in range(len(found) + 1) if i not in found)
        raise Unreadable(f"{prefix}{missing} is missing (layers are numbered 0 … {max(found)})")
    return len(found)


def _tied(shapes: Shapes, ties: Mapping[str, str], head: str, embedding: str) -> bool:
    """Whether the head is the embedding: absent (transformers saves a tied tensor once) or sharing its storage."""
    return head not in shapes or ties.get(head) == embedding


def _ratio(inner: int, width: int) -> int | None:
    return inner // width if inner % width == 0 else None


def _groups(gn: int, state_default: int) -> tuple[int, int, str]:
    """(ngroups, d_state) for a product G·N the shapes fix, and the note saying so."""
    groups, state = (gn // state_default, state_default) if gn % state_default == 0 else (1, gn)
    return (
        groups,
        state,
        f"the tensors fix only the product of the groups and the state size ({gn:,}): taken as {groups} × {state}",
    )


def mamba_hf(shapes: Shapes, ties: Mapping[str, str]) -> Inferred | None:
    """``MambaForCausalLM`` (FalconMamba saves the same tensors).

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
    """
    if "backbone.embeddings.weight" not in shapes or "backbone.layers.0.mixer.x_proj.weight" not in shapes:
        return None
    m = "backbone.layers.0.mixer."
    vocab, d = _shape(shapes, "backbone.embeddings.weight", 2)
    e, n = _shape(shapes, m + "A_log", 2)
    k = _shape(shapes, m + "conv1d.weight", 3)[2]
    r = _shape(shapes, m + "dt_proj.weight", 2)[1]
    config: dict[str, Any] = {"model_type": "mamba", "vocab_size": vocab, "hidden_size": d, "state_size": n}
    expand = _ratio(e, d)
    notes = [
        "FalconMamba's checkpoints hold the same tensors (its dt/B/C norms have no weights): the count is the same"
    ]
    if expand is None:
        config["intermediate_size"] = e
        notes.append(f"the inner width {e:,} is not a multiple of hidden_size {d:,}: given as intermediate_size")
    else:
        config["expand"] = expand
    config.update(
        num_hidden_layers=layer_count(shapes, "backbone.layers."),
        conv_kernel=k,
        time_step_rank=r,
        use_bias=m + "in_proj.bias" in shapes,
        use_conv_bias=m + "conv1d.bias" in shapes,
        tie_word_embeddings=_tied(shapes, ties, "lm_head.weight", "backbone.embeddings.weight"),
    )
    return Inferred("mamba", config, notes, embedding="backbone.embeddings.weight")


def _mamba2_sizes(shapes: Shapes, m: str) -> dict[str, int]:
    """E, H, the channels of B and C (2GN), d_ssm, K and D's length, from a Mamba-2 mixer's tensors."""
    d, e = _shape(shapes, m + "out_proj.weight", 2)
    (h,) = _shape(shapes, m + "A_log", 1)
    rows = _shape(shapes, m + "in_proj.weight", 2)[0]
    channels, _, k = _shape(shapes, m + "conv1d.weight", 3)
    bc = rows - 2 * e - h
    if bc <= 0 or bc % 2:
        raise Unreadable(f"{m}in_proj.weight has {rows} rows: not 2E + 2GN + H of a Mamba-2 mixer")
    return {
        "d": d,
        "e": e,
        "h": h,
        "gn": bc // 2,
        "d_ssm": channels - bc,
        "k": k,
        "skip": _shape(shapes, m + "D", 1)[0],
    }


def mamba2_hf(shapes: Shapes, ties: Mapping[str, str]) -> Inferred | None:
    """``Mamba2ForCausalLM``.

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
    if "backbone.embeddings.weight" not in shapes or "backbone.layers.0.mixer.dt_bias" not in shapes:
        return None
    m = "backbone.layers.0.mixer."
    vocab, d = _shape(shapes, "backbone.embeddings.weight", 2)
    s = _mamba2_sizes(shapes, m)
    expand, head_dim = _ratio(s["e"], d), _ratio(s["e"], s["h"])
    if expand is None or head_dim is None:
        raise Unreadable(f"the inner width {s['e']:,} is not expand × hidden_size and num_heads × head_dim")
    groups, state, note = _groups(s["gn"], 128)
    config = {
        "model_type": "mamba2",
        "vocab_size": vocab,
        "hidden_size": d,
        "num_hidden_layers": layer_count(shapes, "backbone.layers."),
        "expand": expand,
        "num_heads": s["h"],
        "head_dim": head_dim,
        "n_groups": groups,
        "state_size": state,
        "conv_kernel": s["k"],
        "use_bias": m + "in_proj.bias" in shapes,
        "use_conv_bias": m + "conv1d.bias" in shapes,
        "tie_word_embeddings": _tied(shapes, ties, "lm_head.weight", "backbone.embeddings.weight"),
    }
    return Inferred("mamba2", config, [f"n_groups, state_size: {note}"], embedding="backbone.embeddings.weight")


def rwkv_hf(shapes: Shapes, ties: Mapping[str, str]) -> Inferred | None:
    """``RwkvForCausalLM`` (RWKV-4).

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
    """
    if "rwkv.embeddings.weight" not in shapes or "rwkv.blocks.0.attention.time_decay" not in shapes:
        return None
    vocab, d = _shape(shapes, "rwkv.embeddings.weight", 2)
    config = {
        "model_type": "rwkv",
        "vocab_size": vocab,
        "hidden_size": d,
        "num_hidden_layers": layer_count(shapes, "rwkv.blocks."),
        "attention_hidden_size": _shape(shapes, "rwkv.blocks.0.attention.time_decay", 1)[0],
        "intermediate_size": _shape(shapes, "rwkv.blocks.0.feed_forward.key.weight", 2)[0],
        "tie_word_embeddings": _tied(shapes, ties, "head.weight", "rwkv.embeddings.weight"),
    }
    return Inferred("rwkv", config, head="head.weight", embedding="rwkv.embeddings.weight")


def _period(kinds: list[str]) -> list[str]:
    """The shortest pattern whose repeats give ``kinds`` (transformers repeats ``block_types``)."""
    return next(kinds[:p] for p in range(1, len(kinds) + 1) if all(k == kinds[i % p] for i, k in enumerate(kinds)))


def recurrent_gemma_hf(shapes: Shapes, ties: Mapping[str, str]) -> Inferred | None:
    """``RecurrentGemmaForCausalLM``: the block pattern from which layers hold an RG-LRU.

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
    if "model.embed_tokens.weight" not in shapes or "model.layers.0.temporal_pre_norm.weight" not in shapes:
        return None
    vocab, d = _shape(shapes, "model.embed_tokens.weight", 2)
    layers = layer_count(shapes, "model.layers.")
    kinds = [
        "recurrent" if f"model.layers.{i}.temporal_block.rg_lru.recurrent_param" in shapes else "attention"
        for i in range(layers)
    ]
    recurrent = [i for i, kind in enumerate(kinds) if kind == "recurrent"]
    if not recurrent:
        raise Unreadable("no layer holds an RG-LRU: num_attention_heads cannot be told from attention layers alone")
    block = f"model.layers.{recurrent[0]}.temporal_block."
    heads = _shape(shapes, block + "rg_lru.input_gate_weight", 3)[0]
    config: dict[str, Any] = {
        "model_type": "recurrent_gemma",
        "vocab_size": vocab,
        "hidden_size": d,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "lru_width": _shape(shapes, block + "linear_x.weight", 2)[0],
        "conv1d_width": _shape(shapes, block + "conv_1d.weight", 3)[2],
        "intermediate_size": 2 * _shape(shapes, "model.layers.0.mlp_block.gate_proj.weight", 2)[0],
        "block_types": _period(kinds),
        "tie_word_embeddings": _tied(shapes, ties, "lm_head.weight", "model.embed_tokens.weight"),
    }
    notes = [
        f"intermediate_size: the MLP is {config['intermediate_size'] // 2:,} wide, half of it (transformers halves "
        f"it, so {config['intermediate_size'] + 1:,} gives the same tensors)",
        f"block_types: the layers repeat {config['block_types']}",
    ]
    if "attention" in kinds:
        attention = f"model.layers.{kinds.index('attention')}.temporal_block."
        q, kv = _shape(shapes, attention + "q_proj.weight", 2)[0], _shape(shapes, attention + "k_proj.weight", 2)[0]
        head_dim = _ratio(q, heads)
        if head_dim is None or kv % head_dim:
            raise Unreadable(f"{attention}q_proj.weight has {q} rows: not num_attention_heads ({heads}) × head_dim")
        config.update(head_dim=head_dim, num_key_value_heads=kv // head_dim)
        config["attention_bias"] = attention + "q_proj.bias" in shapes
    return Inferred("recurrent_gemma", config, notes, embedding="model.embed_tokens.weight")


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
    vocab, d = _shape(shapes, "backbone.embedding.weight", 2)
    notes = []
    if vocab % 8:
        pad, ssm_note = 1, "pad_vocab_size_multiple=1 (the embedding's rows are no multiple of 8)"
    else:
        pad, ssm_note = 8, f"vocab_size: any value the padding to a multiple of 8 takes to {vocab:,}"
    notes.append(f"the embedding has {vocab:,} rows; {ssm_note}")
    ssm: dict[str, Any]
    if m + "x_proj.weight" in shapes:
        e, n = _shape(shapes, m + "A_log", 2)
        expand = _ratio(e, d)
        ssm = {"layer": "Mamba1", "d_state": n, "d_conv": _shape(shapes, m + "conv1d.weight", 3)[2]}
        ssm["expand"] = expand if expand is not None else e / d
        ssm["dt_rank"] = _shape(shapes, m + "dt_proj.weight", 2)[1]
    else:
        s = _mamba2_sizes(shapes, m)
        expand = _ratio(s["e"], d)
        if expand is None:
            raise Unreadable(f"the inner width {s['e']:,} is not expand × d_model (Mamba2 takes an int)")
        groups, state, note = _groups(s["gn"], 128)
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
        "tie_embeddings": _tied(shapes, ties, "lm_head.weight", "backbone.embedding.weight"),
    }
    if "backbone.layers.0.mlp.fc2.weight" in shapes:
        config["d_intermediate"] = _shape(shapes, "backbone.layers.0.mlp.fc2.weight", 2)[1]
    return Inferred("mamba_ssm", config, notes, embedding="backbone.embedding.weight")


#: Every reader, tried in this order (each checks its own tensor names first), and what it reads.
READERS: tuple[tuple[Callable[[Shapes, Mapping[str, str]], Inferred | None], str], ...] = (
    (mamba_hf, "MambaForCausalLM"),
    (mamba2_hf, "Mamba2ForCausalLM"),
    (rwkv_hf, "RwkvForCausalLM"),
    (recurrent_gemma_hf, "RecurrentGemmaForCausalLM"),
    (mamba_ssm_lm, "MambaLMHeadModel"),
)


def read(shapes: Shapes, ties: Mapping[str, str]) -> Inferred | None:
    """The config of the first block model whose tensor names these are, or None.

    Parameters
    ----------
    shapes : mapping of str to tuple
        Name -> shape (a whole state dict or checkpoint).
    ties : mapping of str to str
        Name -> the name whose storage it shares.

    Returns
    -------
    Inferred or None

    Raises
    ------
    Unreadable
        The names are a block model's but the shapes do not give its config (the message names
        the model and the tensor).
    """
    for reader, architecture in READERS:
        try:
            found = reader(shapes, ties)
        except Unreadable as error:
            raise Unreadable(f"the tensors are named as {architecture} names them, but {error}") from None
        if found is not None:
            return found
    return None
