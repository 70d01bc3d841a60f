"""The block pages of the structured state-space models: S4 and S4D, S5, the LRU.

Every number comes from :mod:`derive.blocks` (``s4``, ``s5``, ``lru``) when the site is built;
``tests/blocks/test_ssm_pages.py`` rebuilds each worked example with the transcriptions of the
reference code (``tests/support/ssm_reference.py``) and compares every count, and checks every
closed form at sample sizes against them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sympy

from derive.blocks import lru, s4, s5
from derive.engine.symbols import size_symbols
from derive.render.latex import shape_latex
from derive.tree import Module, count, named_parameters

from ..site import Page
from .worked import module_tensors

__all__ = ["BlockExample", "S4_EXAMPLES", "S5_EXAMPLES", "LRU_EXAMPLES", "tensor_rows", "s4_context", "s5_context"]
__all__ += ["lru_context", "example_rows", "CLOSED_FORMS"]

H, N, P, S, R, C = size_symbols("H N P S r c")


@dataclass(frozen=True)
class BlockExample:
    """A worked example: a reference class called with arguments, derived by ``build``.

    Attributes
    ----------
    cls : str
        The reference class (``"S4D"``, ``"S4Block"``, ``"SequenceLayer"``, ``"LRU"``).
    args : tuple
    kwargs : dict
    build : callable
        derive's builder taking ``(*args, **kwargs)`` (plus ``complex_params``).
    call : str
        As the user writes it.
    """

    cls: str
    args: tuple
    kwargs: dict = field(default_factory=dict)
    build: Callable[..., Module] = s4.s4d
    call: str = ""

    @property
    def module(self) -> Module:
        return self.build(*self.args, **self.kwargs)

    @property
    def shown(self) -> str:
        if self.call:
            return self.call
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.cls}({', '.join(parts)})"


S4_EXAMPLES = (
    BlockExample("S4D", (64,)),
    BlockExample("S4D", (256,)),
    BlockExample("S4D", (512, 64)),
    BlockExample("S4D", (64,), {"lr": 0.0}),
    BlockExample("S4D", (256,), {"lr": 0.001}),
    BlockExample("S4Block", (256,), build=s4.s4_block),
    BlockExample("S4Block", (256,), {"mode": "diag"}, s4.s4_block),
    BlockExample("S4Block", (512,), {"d_state": 64, "bidirectional": True}, s4.s4_block),
    BlockExample("S4Block", (256,), {"lr": 0.0}, s4.s4_block),
    BlockExample("S4Block", (256,), {"lr": {"dt": 0.0, "A": 0.0, "B": 0.0}}, s4.s4_block),
    BlockExample("S4Block", (256,), {"mode": "diag", "final_act": None}, s4.s4_block),
)

S5_EXAMPLES = (
    BlockExample(
        "SequenceLayer",
        (128, 256, 8, "half_glu1"),
        {"batchnorm": True},
        s5.s5_layer,
        "train.py defaults: d_model 128, ssm_size_base 256, blocks 8, half_glu1, batchnorm",
    ),
    BlockExample("SequenceLayer", (512, 384, 16, "half_glu1"), {"batchnorm": True}, s5.s5_layer),
    BlockExample("SequenceLayer", (256, 192, 12, "full_glu"), {}, s5.s5_layer),
    BlockExample("SequenceLayer", (128, 256, 8, "half_glu1"), {"bidirectional": True}, s5.s5_layer),
)

LRU_EXAMPLES = (
    BlockExample(
        "SequenceLayer",
        (128, 256, "batch"),
        {},
        lru.lru_layer,
        "run_train.py defaults: d_hidden 128, d_model 256, norm batch",
    ),
    BlockExample("SequenceLayer", (256, 256, "layer"), {}, lru.lru_layer),
    BlockExample("SequenceLayer", (64, 512, "layer"), {}, lru.lru_layer),
)


def _tex(value: Any) -> str:
    return sympy.latex(sympy.factor(value)) if isinstance(value, sympy.Basic) else f"{value:,}"


def tensor_rows(module: Module) -> list[dict]:
    """The tensor table: name as the framework names it, shape, entries, real scalars, kind."""
    rows = []
    for name, p in named_parameters(module, buffers=True):
        kind = "buffer" if p.buffer else ("complex parameter" if p.complex else "parameter")
        rows.append(
            {
                "name": name,
                "shape": shape_latex(p.shape),
                "numel": _tex(p.numel),
                "real": _tex(p.real_scalars),
                "kind": kind,
            }
        )
    return rows


def example_rows(examples: tuple[BlockExample, ...]) -> list[dict]:
    """Each example's count (trainable too) and, with complex tensors, numel and real scalars."""
    rows = []
    for e in examples:
        module = e.module
        as_complex = e.build(*e.args, **e.kwargs, complex_params=True)
        rows.append(
            {
                "call": e.shown,
                "count": count(module),
                "complex_numel": count(as_complex),
                "complex_real": count(as_complex, real=True),
                "buffers": sum(1 for _, p in named_parameters(module, buffers=True) if p.buffer),
            }
        )
    return rows


def _forms(build: Callable[..., Module], *args: Any, **kwargs: Any) -> dict:
    """A block's closed form: as stored (real pairs), and with complex tensors (numel, real scalars)."""
    stored = build(*args, **kwargs)
    complex_view = build(*args, **kwargs, complex_params=True)
    return {
        "stored": sympy.latex(count(stored)),
        "numel": sympy.latex(count(complex_view)),
        "real": sympy.latex(count(complex_view, real=True)),
    }


#: Every closed form shown, by key: (builder, args, kwargs) with letters (checked at sample sizes).
CLOSED_FORMS: dict[str, tuple[Callable[..., Module], tuple, dict]] = {
    "s4d": (s4.s4d, (H, N), {}),
    "s4d_frozen": (s4.s4d, (H, N), {"lr": 0.0}),
    "s4": (s4.s4_block, (H,), {"d_state": N}),
    "s4_diag": (s4.s4_block, (H,), {"d_state": N, "mode": "diag"}),
    "s4_general": (s4.s4_block, (H,), {"d_state": N, "n_ssm": S, "rank": R, "channels": C}),
    "s4_frozen": (s4.s4_block, (H,), {"d_state": N, "lr": 0.0}),
    "s5_ssm": (s5.s5_ssm, (H, P), {}),
    "s5_bidirectional": (s5.s5_ssm, (H, P), {"bidirectional": True}),
    "s5_layer": (s5.s5_layer, (H, N, 1, "half_glu1"), {"batchnorm": True}),
    "lru": (lru.lru, (N, H), {}),
    "lru_layer": (lru.lru_layer, (N, H), {}),
}


def _closed(*keys: str) -> dict:
    return {k: _forms(CLOSED_FORMS[k][0], *CLOSED_FORMS[k][1], **CLOSED_FORMS[k][2]) for k in keys}


#: The example each page lists tensor by tensor (the reference's own defaults where it has them).
WORKED = {"s4": S4_EXAMPLES[5], "s5": S5_EXAMPLES[0], "lru": LRU_EXAMPLES[0]}


def worked_example(key: str) -> dict:
    """The page's worked example, every tensor with its shape and count (:data:`WORKED`)."""
    e = WORKED[key]
    parts = [repr(a) for a in e.args] + [f"{k}={v!r}" for k, v in e.kwargs.items()]
    return {"code": f"{e.cls}({', '.join(parts)})", "note": e.call, **module_tensors(e.module)}


def s4_context() -> dict:
    """The S4 / S4D page: equations, tensor tables, closed forms, examples, s4#24 answered."""
    s4d_64, frozen = count(s4.s4d(64)), count(s4.s4d(64, lr=0.0))
    block, block_frozen = count(s4.s4_block(256)), count(s4.s4_block(256, lr=0.0))
    block_abd = count(s4.s4_block(256, lr={"dt": 0.0, "A": 0.0, "B": 0.0}))
    return {
        "source": s4.SOURCE,
        "s4d_equations": s4.S4D_EQUATIONS,
        "s4_equations": s4.S4_EQUATIONS,
        "s4d_tensors": tensor_rows(s4.s4d(H, N)),
        "s4d_complex_tensors": tensor_rows(s4.s4d(H, N, complex_params=True)),
        "s4_tensors": tensor_rows(s4.s4_block(H, d_state=N)),
        "forms": _closed("s4d", "s4d_frozen", "s4", "s4_diag", "s4_general", "s4_frozen"),
        "examples": example_rows(S4_EXAMPLES),
        "worked": worked_example("s4"),
        "q24": {
            "s4d": s4d_64,
            "s4d_frozen": frozen,
            "s4d_difference": s4d_64 - frozen,
            "block": block,
            "block_frozen": block_frozen,
            "block_abd": block_abd,
        },
    }


def s5_context() -> dict:
    """The S5 page."""
    return {
        "source": s5.SOURCE,
        "equations": s5.EQUATIONS,
        "tensors": tensor_rows(s5.s5_ssm(H, P)),
        "complex_tensors": tensor_rows(s5.s5_ssm(H, P, complex_params=True)),
        "layer_tensors": tensor_rows(s5.s5_layer(H, N, 1, "half_glu1", batchnorm=True)),
        "forms": _closed("s5_ssm", "s5_bidirectional", "s5_layer"),
        "examples": example_rows(S5_EXAMPLES),
        "worked": worked_example("s5"),
        "P": s5.state_size(256, 8),
    }


def lru_context() -> dict:
    """The LRU page."""
    return {
        "source": lru.SOURCE,
        "equations": lru.EQUATIONS,
        "tensors": tensor_rows(lru.lru(N, H)),
        "complex_tensors": tensor_rows(lru.lru(N, H, complex_params=True)),
        "layer_tensors": tensor_rows(lru.lru_layer(N, H, "batch")),
        "forms": _closed("lru", "lru_layer"),
        "examples": example_rows(LRU_EXAMPLES),
        "worked": worked_example("lru"),
    }


ORDER = 45
PAGES = [
    Page("blocks/s4.md", "S4 and S4D", "blocks-s4.md.j2", lambda: {"s": s4_context()}, (), "Blocks"),
    Page("blocks/s5.md", "S5", "blocks-s5.md.j2", lambda: {"s": s5_context()}, (), "Blocks"),
    Page("blocks/lru.md", "LRU", "blocks-lru.md.j2", lambda: {"s": lru_context()}, (), "Blocks"),
]
