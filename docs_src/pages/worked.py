"""A worked number on each block page: one layer's tensors at a released model's sizes.

The block pages give their tensors in symbols; :data:`WORKED` names, per page, a released model
(its transformers config, the keys that shape it) and the layer to show. :func:`worked` lists that
layer's tensors — names as ``named_parameters()`` gives them, shapes, counts — from
:func:`derive.explain` of the config, and the model's total. ``tests/site/test_worked_examples.py``
builds each config in transformers on the meta device and compares every tensor, in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import derive
from derive.blocks import griffin
from derive.tree import named_parameters

from ..site import number

__all__ = ["Worked", "WORKED", "worked", "module_tensors"]


@dataclass(frozen=True)
class Worked:
    """A released model and the layer of it a block page shows.

    Attributes
    ----------
    model : str
        The model's name on the Hugging Face Hub (``"state-spaces/mamba-130m-hf"``).
    config : dict
        Its transformers config: ``model_type`` and the keys that shape it.
    prefix : str
        The layer's path, dotted and ending in ``"."`` (``"backbone.layers.0.mixer."``).
    what : str
        What the layer is, for the heading ("one Mamba mixer").
    sizes : str
        The sizes that make it, as the reader would search them ("d_model = 768").
    calculator : bool
        Whether the calculator's block form offers it (for other sizes).
    """

    model: str
    config: dict
    prefix: str
    what: str
    sizes: str
    calculator: bool = True


#: Block page -> its worked example (each config as the model's config.json on the Hub has it).
WORKED = {
    "blocks/mamba.md": Worked(
        "state-spaces/mamba-130m-hf",
        {"model_type": "mamba", "vocab_size": 50280, "hidden_size": 768, "num_hidden_layers": 24},
        "backbone.layers.0.mixer.",
        "one Mamba mixer",
        "d_model = 768 (hidden_size), d_state = 16, d_conv = 4, expand = 2",
    ),
    "blocks/mamba2.md": Worked(
        "state-spaces/mamba2-130m",
        {
            "model_type": "mamba2",
            "vocab_size": 50288,
            "hidden_size": 768,
            "num_hidden_layers": 24,
            "state_size": 128,
            "head_dim": 64,
            "num_heads": 24,
            "n_groups": 1,
            "expand": 2,
            "conv_kernel": 4,
            "tie_word_embeddings": True,
        },
        "backbone.layers.0.",
        "one Mamba-2 layer (its RMSNorm and mixer)",
        "d_model = 768 (hidden_size), d_state = 128, headdim = 64, ngroups = 1, expand = 2",
    ),  # fmt: skip
    "blocks/rwkv.md": Worked(
        "RWKV/rwkv-4-169m-pile",
        {"model_type": "rwkv", "vocab_size": 50277, "hidden_size": 768, "num_hidden_layers": 12},
        "rwkv.blocks.1.",
        "one RWKV-4 block (block 0 adds `pre_ln`)",
        "hidden_size = 768, attention_hidden_size = 768, intermediate_size = 3072",
    ),
    "blocks/griffin.md": Worked(
        "google/recurrentgemma-2b",
        dict(griffin.RECURRENTGEMMA_2B),
        "model.layers.0.",
        "one recurrent layer (layers 2, 5, 8, ... are local attention)",
        "hidden_size = 2560, lru_width = 2560, num_attention_heads = 10, intermediate_size = 15360",
        calculator=False,
    ),
}


def _rows(named: Any, prefix: str = "") -> tuple[list[dict], int]:
    rows, layer = [], 0
    for name, p in named:
        if name.startswith(prefix):
            size = 1
            for d in p.shape:
                size *= int(d)
            layer += size
            shape = ", ".join(str(int(d)) for d in p.shape) + ("," if len(p.shape) == 1 else "")
            rows.append({"name": name.removeprefix(prefix), "shape": f"({shape})", "count": number(size)})
    return rows, layer


def module_tensors(module: Any) -> dict[str, Any]:
    """Every parameter of a block built at int sizes (a page's worked example): ``rows`` (``name``,
    ``shape`` as the framework prints it, ``count``) and ``total``, numbers formatted.

    Parameters
    ----------
    module : derive.tree.Module

    Returns
    -------
    dict
    """
    rows, total = _rows(named_parameters(module))
    return {"rows": rows, "total": number(total)}


def worked(path: str) -> dict[str, Any]:
    """The worked example of the block page ``path``: its layer's tensors at the released sizes.

    Parameters
    ----------
    path : str
        A key of :data:`WORKED`.

    Returns
    -------
    dict
        ``model``, ``what``, ``sizes``, ``prefix``; ``rows`` (``name`` after the prefix, ``shape`` as
        torch prints it, ``count``), ``layer`` (their sum) and ``total`` (the model's), numbers formatted.

    Raises
    ------
    KeyError
        ``path`` has no worked example.
    """
    w = WORKED[path]
    report = derive.explain(w.config)
    rows, layer = _rows(named_parameters(report.module), w.prefix)
    return {
        "name": w.model.split("/")[-1].removesuffix("-hf"),
        "calculator": w.calculator,
        "model": w.model,
        "what": w.what,
        "sizes": w.sizes,
        "prefix": w.prefix,
        "rows": rows,
        "layer": number(layer),
        "total": number(report.total),
    }
