"""The released-models table: every released ``config.json`` derive ships (:func:`derive.families.family.released`,
stored once with its source in ``derive/families/data/``), one row each — total and active parameters,
the KV cache per token, the state per sequence and the cache of one sequence at 32K tokens, bf16.

The numbers are derive's, computed when the site is built; ``tests/families/test_registry.py`` holds every
release's tensors, total and active count against transformers 5.23.0 built on the meta device, and each
family's caches against its tiny models run on the CPU (``tests/site/test_released_page.py`` checks the page
shows what derive gives).
"""

from __future__ import annotations

import functools
from typing import Any

from ..site import Page
from .language_models import BUDGETS, FAMILIES, longest

__all__ = ["rows", "released_context", "longest", "CONTEXT", "CONTEXTS", "BUDGETS"]

#: The context length of the table's KV-cache column (tokens).
CONTEXT = 32768
#: The context lengths of the cache columns (tokens).
CONTEXTS = (8192, 32768, 131072)
DTYPE = "bfloat16"


def _family_page(model_type: str) -> str:
    """The docs-relative page that explains a model type: its family page, else its module's API page."""
    for family in FAMILIES:
        if model_type in family.model_types:
            return f"{family.key}.md"
    from derive.blocks import config_model

    module = config_model(model_type).build.__module__  # the module that registers it (qwen3_5 for qwen3_5_moe)
    return f"../api/{module.removeprefix('derive.').replace('.', '/')}.md"


@functools.cache
def _rows() -> tuple[dict[str, Any], ...]:
    return tuple(_compute_rows())


def rows() -> list[dict[str, Any]]:
    """One row per release, largest first (computed once: the released-models page and each family page show
    them).

    Returns
    -------
    list of dict
        ``name``, ``model_type``, ``page``, ``source``, ``published``, ``total``, ``active`` (parameters),
        ``kv_per_token``, ``state`` and ``cache`` (bytes, bf16; the cache of one sequence of :data:`CONTEXT`
        tokens), ``weights`` (bytes, bf16), ``caches`` (bytes at each of :data:`CONTEXTS`) and ``longest``
        (:func:`longest` in each of :data:`BUDGETS`).
    """
    return [dict(r) for r in _rows()]


def _compute_rows() -> list[dict[str, Any]]:
    """The rows of :func:`rows`, computed."""
    import derive
    from derive.analysis.cost import cost
    from derive.families.family import families, released

    out = []
    for model_type in families():
        for release in released(model_type):
            config = {"model_type": model_type, **{k: v for k, v in release.config.items() if k != "model_type"}}
            report = derive.explain(config)
            priced = cost(config, CONTEXT, 1, DTYPE)
            caches = [cost(config, t, 1, DTYPE).cache_bytes for t in CONTEXTS]
            out.append(
                {
                    "name": release.name,
                    "model_type": model_type,
                    "page": _family_page(model_type),
                    "source": release.source,
                    "published": release.published,
                    "total": report.total,
                    "active": report.active if report.active is not None else report.total,
                    "kv_per_token": priced.kv_bytes_per_token,
                    "state": priced.state_bytes,
                    "cache": priced.cache_bytes,
                    "weights": priced.weights_bytes,  # as stored: bf16, or the release's quantization
                    "caches": caches,
                    "longest": [longest(config, gib) for gib in BUDGETS],
                }
            )
    return sorted(out, key=lambda r: (-r["total"], r["name"]))


def released_context() -> dict[str, Any]:
    """The page's variables: its rows, the context, the dtype."""
    return {"rows": rows(), "context": CONTEXT, "contexts": CONTEXTS, "budgets": BUDGETS, "dtype": DTYPE}


ORDER = 48
PAGES = [
    Page("language-models/released.md", "Released models", "language-models-released.md.j2", released_context, (), "Language models")
]  # fmt: skip
