"""Checkpoints and state dicts of block models (Mamba, Mamba-2, RWKV, RecurrentGemma): the config
inferred from the tensors' shapes, the model rebuilt from it, and every tensor checked.

A whole state dict (``torch.save(model.state_dict())``, a ``.safetensors`` file, a mapping of names to
tensors) whose names are a block model's (:mod:`derive.read.files.block_shapes`) is read as that model's
config; the config reader (:data:`derive.blocks.CONFIG_MODELS`) rebuilds the model, and only if
every parameter it makes is among the tensors with the same shape, and every tensor is one of them
(a tensor saved twice must be the tie the model has), is the report the config's: rows per part,
closed forms in the config's keys, and notes naming the inferred config and what the shapes cannot
tell. A tied head absent from the file (transformers saves a tied tensor once) or saved twice
(``torch.save``) is said to be so, in place of the general note on ties.
Otherwise the tensors are read as any state dict's, with a note saying why the config was not used.

>>> explain_block_state({"rwkv.embeddings.weight": (100, 32), "rwkv.blocks.0.attention.time_decay": (32,)}, {})
'the tensors are named as RwkvForCausalLM names them, but rwkv.blocks.0.feed_forward.key.weight is missing; read as tensors'
"""

from __future__ import annotations

from collections.abc import Mapping

from ...tree import named_parameters
from ..live.blocks import difference
from ..report import Report, show
from ..source import clean
from .block_shapes import Unreadable, read

__all__ = ["explain_block_state"]


def _config_line(config: Mapping[str, object]) -> str:
    shown = ", ".join(f"{key}={show(value) if type(value) is int else repr(value)}" for key, value in config.items())
    return f"config inferred from the tensor shapes: {clean(shown, 600)}"


def _name(model_type: str) -> str:
    from ...blocks import CONFIG_MODELS

    return CONFIG_MODELS[model_type].architecture


def explain_block_state(shapes: Mapping[str, tuple], ties: Mapping[str, str]) -> Report | str | None:
    """The report of a block model's whole state dict, from the config its shapes give.

    Parameters
    ----------
    shapes : mapping of str to tuple
        Every tensor's name and shape.
    ties : mapping of str to str
        Name -> the earlier name whose storage it shares (a tied tensor saved twice).

    Returns
    -------
    Report, str or None
        The config's report; a note saying why not when the names are a block model's but its
        config cannot be inferred or rebuilds other tensors; None for other tensors.
    """
    try:
        found = read(shapes, ties)
    except Unreadable as error:
        return f"{clean(str(error), 300)}; read as tensors"
    if found is None:
        return None
    architecture = _name(found.model_type)
    from ...blocks import config_model

    why = ""
    try:
        tree = config_model(found.model_type).build(found.config)
    except (TypeError, ValueError) as error:
        why = f"its inferred config is refused ({clean(str(error), 200)})"
    else:
        listed = list(named_parameters(tree, ties=True))
        tied = {name: p.tied_to for name, p in listed if p.tied_to}
        # a tied tensor may be saved once (transformers, safetensors) or under both names (torch.save)
        expected = {name: p.shape for name, p in listed if name in shapes or not p.tied_to}
        why = difference(shapes, expected, "in the tensors", "in the model")
        wrong = [name for name, first in ties.items() if tied.get(name) != first]
        if not why and wrong:
            why = f"{clean(wrong[0], 80)} shares {clean(ties[wrong[0]], 80)}'s storage, which the model does not tie"
        why = f"the model its inferred config builds differs ({why})" if why else ""
    if why:
        return f"the tensors are named as {architecture} names them, but {why}; read as tensors"
    from ..configs.pretrained import explain_config

    report = explain_config(found.config)
    added = [_config_line(found.config), *found.notes]
    head = found.head
    if found.config.get("tie_word_embeddings", found.config.get("tie_embeddings")):
        if head in shapes:
            added.append(f"{head} shares {found.embedding}'s storage (tied): counted once")
        else:
            added.append(
                f"{head} is not among the tensors: it is tied to {found.embedding} (a tied tensor is saved once), "
                "counted once, as model.parameters() counts it"
            )
    added.append(f"the {architecture} rebuilt from this config has exactly these tensors (every name and shape)")
    report.notes[:0] = added
    report.title = f"{architecture} from its tensors (config inferred)"
    return report
