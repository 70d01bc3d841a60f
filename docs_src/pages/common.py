"""Helpers shared by the page modules: tensor tables and example summaries."""

from __future__ import annotations

import sympy

from derive.engine.stack import UPPER
from derive.render.latex import latex, shape_latex

from ..site import Example, number

__all__ = ["tensor_rows", "example_context", "formulas", "stacked", "side_by_side"]

_DIRECTION = {0: "forward", 1: "reverse"}


def stacked(blocks: list[str]) -> str:
    """LaTeX diagram of gate blocks stacked top to bottom: one frame, a rule between blocks.

    (No ``|`` column rules: the diagram sits in a Markdown table cell, where ``|`` ends the cell.)
    """
    if len(blocks) == 1:
        return blocks[0]
    return r"\boxed{\def\arraystretch{1.4}\begin{array}{c}" + r" \\ \hline ".join(blocks) + r"\end{array}}"


def side_by_side(rows: list[list[str]]) -> str:
    """LaTeX diagram of gate blocks side by side, each in its own frame (one line per row)."""
    lines = [r"\,".join(rf"\boxed{{{b}}}" for b in row) for row in rows]
    return lines[0] if len(lines) == 1 else r"\begin{array}{c}" + r" \\ ".join(lines) + r"\end{array}"


def tensor_rows(stack, layer) -> list[dict]:
    """Rows of a tensor table for ``layer`` (int, or UPPER shown as ``{k}``): LaTeX shape, blocks, size."""
    rows = []
    for t in stack.layer_tensors(layer):
        blocks = stacked([latex(p.symbol) for p in t.parameters])
        rows.append(
            {
                "name": t.name.replace(f"_l{UPPER}", "_l{k}"),
                "direction": _DIRECTION[t.direction],
                "shape": shape_latex(t.shape),
                "blocks": blocks,
                "numel": sympy.latex(sympy.factor(t.numel)),
            }
        )
    return rows


def example_context(example: Example) -> dict:
    """A worked example's call, count, per-layer counts and shapes (numbers formatted)."""
    stack = example.build()
    layers = range(int(stack.num_layers)) if hasattr(stack, "num_layers") else range(1)
    return {
        "call": example.call,
        "count": number(stack.count),
        "layers": [number(stack.layer_count(k)) for k in layers],
        "shapes": [(name, shape) for name, shape in stack.shapes.items()],
    }


def formulas(stack) -> dict:
    """The stack's count as LaTeX, expanded and factored."""
    return {"expanded": sympy.latex(stack.count), "factored": sympy.latex(stack.factored)}
