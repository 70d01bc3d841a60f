"""The architecture a checkpoint's keys belong to, when it is not the model's: Mamba-2 keys loaded into Mamba.

A ``load_state_dict`` error lists the keys the checkpoint has and the model lacks ("unexpected") and
those the model has and the checkpoint lacks ("missing"). Read against the tensor names of every
block model derive builds (:func:`derive.models.block_errors.template`, layer indices as ``#``), the
unexpected keys are some model type's and the missing keys another's: a Mamba-2 checkpoint in a
Mamba-1 model has ``mixer.dt_bias`` and ``mixer.norm.weight`` and lacks ``mixer.x_proj`` and
``mixer.dt_proj``; an RWKV-7 (fla) checkpoint in an RWKV-4 model shares no key at all. The keys a
bool config key adds (``use_bias``) are not telling: a model type may have them or not.

>>> print(checkpoint_architecture(["backbone.layers.0.mixer.x_proj.weight"],
...                               ["backbone.layers.0.mixer.dt_bias"], "MambaForCausalLM"))
MambaForCausalLM: the checkpoint is a Mamba2ForCausalLM's (model type mamba2), not a MambaForCausalLM's — its keys backbone.layers.0.mixer.dt_bias, your model's backbone.layers.0.mixer.x_proj.weight: build the model the checkpoint's config.json describes
"""

from __future__ import annotations

from .block_errors import Template, normalized, template
from .source import clean

__all__ = ["checkpoint_architecture"]


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
    from ..blocks import CONFIG_MODELS

    templates = [t for t in (template(m) for m in CONFIG_MODELS) if t is not None]
    kinds = {id(t): m for m, t in ((m, template(m)) for m in CONFIG_MODELS) if t is not None}
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
        return " or ".join(f"{a}'s (model type {', '.join(k)})" for a, k in shown.items())

    theirs = ", ".join(clean(k, 60) for k in unexpected[:2])
    ours = ", ".join(clean(k, 60) for k in missing[:2])
    head = f"{owner}: " if owner else ""
    return (
        f"{head}the checkpoint is a {named(checkpoint)}, not a {named(model).split(' (model type')[0]} — its keys "
        f"{theirs}, your model's {ours}: build the model the checkpoint's config.json describes"
    )
