"""The block page of flash-linear-attention's layers: GLA, RetNet, HGRN, HGRN2, DeltaNet.

Every number comes from :mod:`derive.blocks.fla` / :mod:`derive.blocks.fla_recurrent` when the
site is built; ``tests/blocks/test_ssm_pages.py`` builds every example on this page with fla 0.6.0
(in ``.venv-ssm``) and compares each tensor and total.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy

from derive.blocks import fla, fla_recurrent
from derive.engine.symbols import size_symbols
from derive.render.latex import shape_latex
from derive.tree import Module, count, named_parameters

from ..site import Page

__all__ = ["FlaExample", "LAYERS", "EXAMPLES", "fla_context", "BUILD"]

D, H = size_symbols("D H")

#: fla's class -> derive's builder.
BUILD = {
    "GatedLinearAttention": fla.gated_linear_attention,
    "MultiScaleRetention": fla.multiscale_retention,
    "HGRNAttention": fla_recurrent.hgrn_attention,
    "HGRN2Attention": fla_recurrent.hgrn2_attention,
    "DeltaNet": fla_recurrent.delta_net,
}

#: (class, paper, the sizes of its closed form as letters).
LAYERS = (
    (
        "GatedLinearAttention",
        "Yang et al. 2024, Gated Linear Attention Transformers",
        {"hidden_size": D, "num_heads": H},
    ),
    ("MultiScaleRetention", "Sun et al. 2023, Retentive Network (RetNet)", {"hidden_size": D, "num_heads": H}),
    ("HGRNAttention", "Qin et al. 2023, Hierarchically Gated Recurrent Neural Network", {"hidden_size": D}),
    ("HGRN2Attention", "Qin et al. 2024, HGRN2: Gated Linear RNNs with State Expansion", {"hidden_size": D}),
    (
        "DeltaNet",
        "Yang et al. 2024, Parallelizing Linear Transformers with the Delta Rule",
        {"hidden_size": D, "num_heads": H},
    ),
)


@dataclass(frozen=True)
class FlaExample:
    """One fla constructor call shown on the page (built live by the tests)."""

    cls: str
    kwargs: dict = field(default_factory=dict)

    @property
    def call(self) -> str:
        return f"{self.cls}({', '.join(f'{k}={v!r}' for k, v in self.kwargs.items())})"

    @property
    def module(self) -> Module:
        return BUILD[self.cls](**self.kwargs)


EXAMPLES = (
    *(FlaExample(cls) for cls in BUILD),
    FlaExample("GatedLinearAttention", {"hidden_size": 2048, "num_heads": 16}),
    FlaExample("GatedLinearAttention", {"hidden_size": 2048, "num_heads": 16, "use_short_conv": True}),
    FlaExample("MultiScaleRetention", {"hidden_size": 2048, "num_heads": 8}),
    FlaExample("MultiScaleRetention", {"hidden_size": 1024, "fuse_norm": False, "gate_fn": "prelu"}),
    FlaExample("HGRNAttention", {"hidden_size": 2048, "expand_ratio": 2}),
    FlaExample("HGRN2Attention", {"hidden_size": 2048, "num_heads": 16}),
    FlaExample("HGRN2Attention", {"hidden_size": 2048, "num_heads": 16, "expand_ratio": None}),
    FlaExample("DeltaNet", {"hidden_size": 2048, "num_heads": 16}),
    FlaExample("DeltaNet", {"hidden_size": 2048, "num_heads": 16, "use_gate": True, "use_short_conv": False}),
)


def _tex(value: Any) -> str:
    return sympy.latex(value) if isinstance(value, sympy.Basic) else f"{value:,}"


def _layer(cls: str, paper: str, letters: dict) -> dict:
    default, symbolic = BUILD[cls](), BUILD[cls](**letters)
    return {
        "cls": cls,
        "paper": paper,
        "file": fla.FILES[cls],
        "equations": fla.EQUATIONS[cls],
        "tensors": [
            {"name": n, "shape": shape_latex(p.shape), "numel": _tex(p.numel), "default": tuple(d.shape)}
            for (n, p), (_, d) in zip(named_parameters(symbolic), named_parameters(default))
        ],
        "form": sympy.latex(count(symbolic)),
        "default": count(default),
        "letters": ", ".join(f"${sympy.latex(v)}$ = `{k}`" for k, v in letters.items()),
    }


def fla_context() -> dict:
    """The fla page: per layer its equations, tensors (in letters and at the defaults), closed form; examples."""
    return {
        "layers": [_layer(*layer) for layer in LAYERS],
        "examples": [{"call": e.call, "count": count(e.module)} for e in EXAMPLES],
        "hgrn2_heads": (
            count(BUILD["HGRN2Attention"](hidden_size=2048, num_heads=16)),
            count(BUILD["HGRN2Attention"](hidden_size=2048, num_heads=16, expand_ratio=None)),
        ),
    }


ORDER = 46
PAGES = [
    Page(
        "blocks/fla.md",
        "fla: GLA, RetNet, HGRN, DeltaNet",
        "blocks-fla.md.j2",
        lambda: {"s": fla_context()},
        (),
        "Blocks",
    )
]
