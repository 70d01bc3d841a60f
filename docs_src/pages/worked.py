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

__all__ = ["Worked", "WORKED", "KEPT", "worked", "kept", "module_tensors"]


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
        "backbone.layers.0.",
        "one Mamba layer (its RMSNorm and mixer)",
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


#: The models whose inference state each block page gives (name on the Hub, transformers config): the
#: worked example's, and for Mamba every size of state-spaces/mamba's README (its ``-hf`` configs).
KEPT: dict[str, tuple[tuple[str, dict], ...]] = {path: ((w.model, w.config),) for path, w in WORKED.items()}
KEPT["blocks/mamba.md"] = tuple(
    (f"state-spaces/{name}-hf", {"model_type": "mamba", "vocab_size": 50280, "hidden_size": d, "num_hidden_layers": n})
    for name, (d, n) in {"mamba-130m": (768, 24), "mamba-370m": (1024, 48), "mamba-790m": (1536, 48),
                         "mamba-1.4b": (2048, 48), "mamba-2.8b": (2560, 64)}.items()
)  # fmt: skip

#: The dtype the pages' inference state is given in (the model's; a state transformers keeps in float32
#: whatever the model's dtype stays float32).
DTYPE = "bfloat16"
_SIZES = {"float32": 4, "bfloat16": 2, "float16": 2, "int64": 8, "float64": 8}


def _bytes_by_dtype(module: Any, tokens: int) -> dict[str, int]:
    from derive.tree import cache_elements

    out: dict[str, int] = {}
    for kind, entries in cache_elements(module, 1, tokens).items():
        name = DTYPE if kind is None else kind
        out[name] = out.get(name, 0) + entries * _SIZES[name]
    return out


def kept(path: str) -> list[dict[str, Any]]:
    """What one sequence keeps while each of the block page ``path``'s models generates, in bf16 as
    transformers holds it (:data:`KEPT`; :func:`derive.cost`).

    Parameters
    ----------
    path : str
        A key of :data:`KEPT`.

    Returns
    -------
    list of dict
        One per model: ``name``, ``config``, ``state`` (bytes per sequence, constant in its length),
        ``dtypes`` (the state's bytes by dtype, ``[(dtype, bytes)]``, formatted), ``kv`` (bytes a
        token adds: keys and values), ``window`` (the attention window the keys and values stop
        growing at, or None) and ``states`` (``name``, ``shape`` of one layer's tensor with the batch
        axis, ``dtype``, ``layers``: how many layers keep one).

    Raises
    ------
    KeyError
        ``path`` has no such models.
    """
    from derive.analysis.cost import cost
    from derive.tree import named_states

    out = []
    for name, config in KEPT[path]:
        report = derive.explain(dict(config))
        c = cost(report, 1, 1, DTYPE)
        one, two = _bytes_by_dtype(report.module, 1), _bytes_by_dtype(report.module, 2)
        state = {k: 2 * one.get(k, 0) - two.get(k, 0) for k in sorted(set(one) | set(two))}
        assert sum(state.values()) == c.state_bytes, name
        kinds: dict[tuple, dict] = {}
        windows = set()
        for _, s in named_states(report.module):
            shape = ", ".join(str(d) for d in s.shape)
            key = (s.name, shape, s.dtype or DTYPE)
            kinds.setdefault(key, {"name": s.name, "shape": f"({shape})", "dtype": s.dtype or DTYPE, "layers": 0})
            kinds[key]["layers"] += 1
            if s.window is not None:
                windows.add(s.window)
        out.append(
            {
                "name": name,
                "config": dict(config),
                "state": c.state_bytes,
                "dtypes": [(k, number(v)) for k, v in state.items() if v],
                "kv": c.kv_bytes_per_token,
                "window": min(windows) if windows else None,
                "states": sorted(kinds.values(), key=lambda k: ("tokens" in k["shape"], k["name"])),
            }
        )
    return out


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
        "kept": kept(path),
    }
