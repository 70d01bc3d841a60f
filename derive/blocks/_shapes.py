"""The way back from a checkpoint's tensors to a block model's config: what every block's reader shares.

Each block module registers, beside the builder that names its tensors, the reader that recognises
its model by a few tensor names and gives the config keys the shapes fix
(:func:`register_shapes`: ``MambaForCausalLM`` in :mod:`derive.blocks.mamba`, ``Mamba2ForCausalLM``
in :mod:`derive.blocks.mamba2`, ``RwkvForCausalLM`` in :mod:`derive.blocks.rwkv`,
``RecurrentGemmaForCausalLM`` in :mod:`derive.blocks.griffin`, mamba_ssm's ``MambaLMHeadModel`` in
:mod:`derive.blocks.mamba_lm`). :mod:`derive.read.files.block_shapes` asks each in turn, and
:mod:`derive.read.files.block_infer` rebuilds the model from the config found and accepts it only if
every tensor is reproduced.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..engine.lazy import Registry

__all__ = [
    "Shapes",
    "Unreadable",
    "Inferred",
    "ShapeReader",
    "SHAPE_READERS",
    "register_shapes",
    "dims",
    "layer_count",
    "tied",
    "ratio",
    "groups_and_state",
]

#: Tensor name -> shape (a whole state dict or checkpoint).
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


def dims(shapes: Shapes, name: str, ndim: int) -> tuple:
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


def tied(shapes: Shapes, ties: Mapping[str, str], head: str, embedding: str) -> bool:
    """Whether the head is the embedding: absent (transformers saves a tied tensor once) or sharing its storage."""
    return head not in shapes or ties.get(head) == embedding


def ratio(inner: int, width: int) -> int | None:
    return inner // width if inner % width == 0 else None


def groups_and_state(gn: int, state_default: int) -> tuple[int, int, str]:
    """(ngroups, d_state) for a product G·N the shapes fix, and the note saying so."""
    groups, state = (gn // state_default, state_default) if gn % state_default == 0 else (1, gn)
    return (
        groups,
        state,
        f"the tensors fix only the product of the groups and the state size ({gn:,}): taken as {groups} × {state}",
    )


#: ``reader(shapes, ties) -> Inferred | None``: a block model's config from its tensors, or None
#: when the names are not its (raises :class:`Unreadable` when they are but the shapes do not fit).
ShapeReader = Callable[[Shapes, Mapping[str, str]], "Inferred | None"]

#: Every registered reader, by the class it recognises (iterating imports every block's module).
SHAPE_READERS: Registry[str, ShapeReader] = Registry("shape_readers")


def register_shapes(architecture: str) -> Callable[[ShapeReader], ShapeReader]:
    """Register the decorated function as the reader of ``architecture``'s checkpoints.

    Parameters
    ----------
    architecture : str
        The class whose saved tensors it reads (``"MambaForCausalLM"``), named in refusals.

    Returns
    -------
    callable
        A decorator returning the reader unchanged.
    """

    def decorate(reader: ShapeReader) -> ShapeReader:
        SHAPE_READERS[architecture] = reader
        return reader

    return decorate
