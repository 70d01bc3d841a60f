"""The architecture a checkpoint's keys belong to, when it is not the model's: Mamba-2 keys loaded into Mamba.

A ``load_state_dict`` error lists the keys the checkpoint has and the model lacks ("unexpected") and
those the model has and the checkpoint lacks ("missing"). Read against the tensor names of every
block model derive builds (:func:`derive.read.errors.blocks.template`, layer indices as ``#``), the
unexpected keys are some model type's and the missing keys another's: a Mamba-2 checkpoint in a
Mamba-1 model has ``mixer.dt_bias`` and ``mixer.norm.weight`` and lacks ``mixer.x_proj`` and
``mixer.dt_proj``; an RWKV-7 (fla) checkpoint in an RWKV-4 model shares no key at all. The keys a
bool config key adds (``use_bias``) are not telling: a model type may have them or not. Besides the
model types built from a config, BlinkDL's RWKV-LM models are read so (their ``.pth`` checkpoints'
names: an RWKV-4 checkpoint's ``att.time_first`` against an RWKV-5 model's ``att.time_faaaa``,
``att.time_mix_g`` and ``att.gate``: :data:`BLINKDL`).

Keys of one side only (a model with layers no checkpoint tensor fills) are read by
:func:`keys_block`: when every key is one block's tensor under one path (``model.layers.#.mamba.``)
and together they are all the tensors that block always has, the block is named (:data:`BLOCKS`).

>>> print(checkpoint_architecture(["backbone.layers.0.mixer.x_proj.weight"],
...                               ["backbone.layers.0.mixer.dt_bias"], "MambaForCausalLM"))
MambaForCausalLM: the checkpoint is a Mamba2ForCausalLM's (model type mamba2), not a MambaForCausalLM's — its keys backbone.layers.0.mixer.dt_bias, your model's backbone.layers.0.mixer.x_proj.weight: build the model the checkpoint's config.json describes
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...tree import Module, named_parameters
from ..source import clean
from .blocks import Template, normalized, template

__all__ = ["checkpoint_architecture", "keys_block", "one_side_block", "BLINKDL", "BLOCKS"]


def _rwkv(version: str) -> Callable[[], Module]:
    def build() -> Module:
        from ...blocks import rwkv, rwkv6, rwkv7

        make: dict[str, Callable[..., Module]] = {
            "4": rwkv.rwkv4_blinkdl,
            "5": rwkv6.rwkv5_blinkdl,
            "6": rwkv6.rwkv6_blinkdl,
            "7": rwkv7.rwkv7_blinkdl,
        }
        return make[version](64, 128, 2)

    return build


#: BlinkDL's RWKV-LM models, named as their checkpoints name them (BlinkDL/RWKV-LM ``RWKV-v4neo``,
#: ``RWKV-v5``, ``RWKV-v7`` ``src/model.py``; :mod:`derive.blocks.rwkv`, ``rwkv6``, ``rwkv7``), by the
#: name a reader knows them by.
BLINKDL: dict[str, Callable[[], Module]] = {
    "RWKV-4 (BlinkDL RWKV-v4neo)": _rwkv("4"),
    "RWKV-5 (BlinkDL RWKV-v5, x052)": _rwkv("5"),
    "RWKV-6 (BlinkDL RWKV-v5, x060)": _rwkv("6"),
    "RWKV-7 (BlinkDL RWKV-v7)": _rwkv("7"),
}


def _mamba(**kwargs: object) -> Module:
    from ...blocks.mamba import Mamba

    return Mamba(16, **kwargs)  # type: ignore[arg-type]


def _mamba2(**kwargs: object) -> Module:
    from ...blocks.mamba2 import Mamba2

    return Mamba2(64, headdim=16, **kwargs)  # type: ignore[arg-type]


#: Blocks whose tensors a set of keys is read against: the name, and the block built with each
#: choice of its bool arguments that adds or removes a tensor (the tensors every one has are the
#: block's own; the others may be there or not). Mamba's and Mamba-2's mixers as mamba_ssm
#: (``modules/mamba_simple.py``, ``modules/mamba2.py``) and transformers (``MambaMixer``,
#: ``Mamba2Mixer``) name them alike.
BLOCKS: dict[str, tuple[Callable[[], Module], ...]] = {
    "Mamba mixer (mamba_ssm Mamba, transformers MambaMixer)": (
        _mamba,
        lambda: _mamba(bias=True),
        lambda: _mamba(conv_bias=False),
    ),
    "Mamba-2 mixer (mamba_ssm Mamba2, transformers Mamba2Mixer)": (
        _mamba2,
        lambda: _mamba2(bias=True),
        lambda: _mamba2(conv_bias=False),
        lambda: _mamba2(rmsnorm=False),
    ),
}
_BLOCK_NAMES: dict[str, tuple[frozenset[str], frozenset[str]]] = {}


def _block_names(block: str) -> tuple[frozenset[str], frozenset[str]]:
    """The tensors block ``block`` always has, and those it may have (built once)."""
    if block not in _BLOCK_NAMES:
        variants = [{n for n, _ in named_parameters(build())} for build in BLOCKS[block]]
        _BLOCK_NAMES[block] = frozenset(set.intersection(*variants)), frozenset(set.union(*variants))
    return _BLOCK_NAMES[block]


def keys_block(keys: list[str]) -> tuple[str, str] | None:
    """The block a set of keys are all the tensors of, under one path, and that path.

    Parameters
    ----------
    keys : list of str
        Tensor names (one side of a ``load_state_dict`` error), layer indices any.

    Returns
    -------
    (str, str) or None
        The block's name (a key of :data:`BLOCKS`) and the path it is under (layer indices as ``#``,
        ``"model.layers.#.mamba."``); None unless exactly one block has every key under one path and
        the keys hold every tensor that block always has.

    Examples
    --------
    >>> keys_block(["l.0.m.dt_bias", "l.0.m.A_log", "l.0.m.D", "l.0.m.in_proj.weight", "l.0.m.conv1d.weight",
    ...             "l.0.m.out_proj.weight"])
    ('Mamba-2 mixer (mamba_ssm Mamba2, transformers Mamba2Mixer)', 'l.#.m.')
    """
    names = {normalized(k) for k in keys}
    found = []
    for block in BLOCKS:
        always, may = _block_names(block)
        prefixes = set()
        for name in names:
            heads = {name[: len(name) - len(n)] for n in may if name == n or name.endswith("." + n)}
            if not heads:
                break
            prefixes.add(max(heads, key=len))
        else:
            if len(prefixes) == 1:
                (prefix,) = prefixes
                if {n[len(prefix) :] for n in names} >= always:
                    found.append((block, prefix))
    return found[0] if len(found) == 1 else None


def _blinkdl_templates() -> list[tuple[str, Template]]:
    return [
        (name, Template(name, {normalized(n): p.shape for n, p in named_parameters(build())}, {}, {}, "n_layer"))
        for name, build in BLINKDL.items()
    ]


def _matches(t: Template, owner: str, have: list[str], lack: list[str]) -> bool:
    """Whether ``t`` has every key of ``have`` and none of ``lack`` that it always has (read under ``owner``'s part)."""
    part = t.parts.get(owner, "")
    prefix = f"{part}." if part else ""
    names = set(t.shapes)
    always = names - set(t.flags)
    return all(normalized(prefix + k) in names for k in have) and not any(
        normalized(prefix + k) in always for k in lack
    )


def checkpoint_architecture(missing: list[str], unexpected: list[str], owner: str = "") -> str | None:
    """The line naming the checkpoint's architecture when its keys are another model type's than the model's.

    Parameters
    ----------
    missing : list of str
        Keys the model has and the checkpoint lacks.
    unexpected : list of str
        Keys the checkpoint has and the model lacks.
    owner : str, optional
        The class the error names ("Error(s) in loading state_dict for MambaForCausalLM").

    Returns
    -------
    str or None
        None unless both lists are given, the unexpected keys are those of some block model type and
        the missing keys those of another (no one model type has both).
    """
    if not missing or not unexpected:
        return None
    from ...blocks import CONFIG_MODELS

    built = [(m, t) for m, t in ((m, template(m)) for m in CONFIG_MODELS) if t is not None] + _blinkdl_templates()
    templates = [t for _, t in built]
    kinds = {id(t): m for m, t in built}
    checkpoint = [t for t in templates if _matches(t, owner, unexpected, missing)]
    model = [t for t in templates if _matches(t, owner, missing, unexpected)]
    if not checkpoint or not model or {id(t) for t in checkpoint} & {id(t) for t in model}:
        return None
    own = [t for t in model if t.architecture == owner or owner in t.parts]
    model = own or model

    def named(group: list[Template]) -> str:
        shown: dict[str, list[str]] = {}
        for t in group:
            shown.setdefault(t.architecture, []).append(kinds[id(t)])
        return " or ".join(
            f"{a}'s (model type {', '.join(k)})" if k != [a] else f"{a} model's" for a, k in shown.items()
        )

    theirs = ", ".join(clean(k, 60) for k in unexpected[:2])
    ours = ", ".join(clean(k, 60) for k in missing[:2])
    head = f"{owner}: " if owner else ""
    configured = any(kinds[id(t)] != t.architecture for t in checkpoint)  # BlinkDL's checkpoints have no config
    advice = (
        "build the model the checkpoint's config.json describes" if configured else "build the checkpoint's version"
    )
    return (
        f"{head}the checkpoint is a {named(checkpoint)}, not a {named(model).split(' (model type')[0]} — its keys "
        f"{theirs}, your model's {ours}: {advice}"
    )


def one_side_block(missing: list[str], unexpected: list[str]) -> list[str]:
    """A line for each side of a ``load_state_dict`` error whose keys are all one block's (:func:`keys_block`).

    Parameters
    ----------
    missing : list of str
        Keys the model has and the checkpoint lacks.
    unexpected : list of str
        Keys the checkpoint has and the model lacks.

    Returns
    -------
    list of str
    """
    lines = []
    for keys, whose, lacks in ((missing, "your model", "the checkpoint"), (unexpected, "the checkpoint", "your model")):
        found = keys_block(keys) if keys else None
        if found is not None:
            block, path = found
            layers = sorted({int(i) for i in re.findall(r"\.(\d+)\.", " ".join(keys))})
            at = f" in layers {', '.join(map(str, layers))}" if layers else ""
            lines.append(
                f"the {len(keys)} keys {clean(path, 60)}* are the tensors of a {block}: {whose} has one{at}; "
                f"{lacks} has no weights for them"
            )
    return lines
