"""Diagrams of wirings as inline SVG, drawn from the :class:`~derive.engine.wirings.Wiring` itself.

One box per layer and direction, stacked from the input (bottom) to the top; an arrow
for everything a box reads, as the wiring says: layer 0 reads the input (and, for a
modified BRNN, the class labels in its conditioning direction), a layer above reads
what :meth:`~derive.engine.wirings.Wiring.reads` names, through an element-wise merge node
for Keras' ``sum``/``mul``/``ave``; a tied input weight is drawn as one shared node
feeding both directions. Each box states the width its direction reads, computed by
:meth:`~derive.engine.wirings.Wiring.layer_input_size` with the symbols I, H (and K). No
picture is drawn by hand: change the wiring and the diagram follows.

The SVG uses ``currentColor`` (it follows the page's light or dark scheme), no
external resource and no ``$`` (so that the Markdown math extension leaves it alone).
"""

from __future__ import annotations

from html import escape

from .._sympy import sympy
from ..engine.symbols import H, I, Size
from ..engine.wirings import Wiring

__all__ = ["wiring_svg", "width_text"]

_BOX_W, _BOX_H = 190, 46
_ROW = 92  # vertical distance between rows
_MARGIN = 24
_ARROWS = {"forward": "→", "reverse": "←"}
_MERGE_SIGN = {"sum": "+", "mul": "×", "ave": "avg"}


def width_text(expr: Size) -> str:
    """A width such as ``2*H`` or ``I + K`` as plain text: ``2H``, ``I + K``.

    Parameters
    ----------
    expr : int or sympy.Expr
        A width (features).

    Returns
    -------
    str
    """
    text = sympy.sstr(sympy.expand(expr))
    return text.replace("*", "")


class _Canvas:
    def __init__(self, ident: str) -> None:
        self.ident = ident
        self.items: list[str] = []

    def box(
        self,
        cx: float,
        cy: float,
        lines: list[str],
        w: float = _BOX_W,
        h: float = _BOX_H,
        dashed: bool = False,
        rounded: float = 6,
    ) -> None:
        dash = ' stroke-dasharray="5 3"' if dashed else ""
        self.items.append(
            f'<rect x="{cx - w / 2:.1f}" y="{cy - h / 2:.1f}" width="{w}" height="{h}" rx="{rounded}" '
            f'fill="currentColor" fill-opacity="0.06" stroke="currentColor" stroke-width="1.2"{dash}/>'
        )
        n = len(lines)
        for k, line in enumerate(lines):
            dy = (k - (n - 1) / 2) * 15 + 4
            weight = ' font-weight="bold"' if k == 0 else ""
            self.items.append(
                f'<text x="{cx:.1f}" y="{cy + dy:.1f}" text-anchor="middle"{weight}>{escape(line)}</text>'
            )

    def node(self, cx: float, cy: float, label: str, r: float = 15) -> None:
        self.items.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r}" fill="currentColor" fill-opacity="0.06" '
            f'stroke="currentColor" stroke-width="1.2"/>'
        )
        self.items.append(f'<text x="{cx:.1f}" y="{cy + 4:.1f}" text-anchor="middle">{escape(label)}</text>')

    def arrow(self, x1: float, y1: float, x2: float, y2: float, dashed: bool = False) -> None:
        dash = ' stroke-dasharray="5 3"' if dashed else ""
        self.items.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="currentColor" '
            f'stroke-width="1.3" marker-end="url(#{self.ident}-arrow)"{dash}/>'
        )

    def path(self, points: list[tuple[float, float]], dashed: bool = False) -> None:
        dash = ' stroke-dasharray="5 3"' if dashed else ""
        coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        self.items.append(
            f'<polyline points="{coords}" fill="none" stroke="currentColor" stroke-width="1.3" '
            f'marker-end="url(#{self.ident}-arrow)"{dash}/>'
        )

    def render(self, width: int, height: int, title: str) -> str:
        head = (
            f'<svg class="wiring-diagram" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'role="img" aria-labelledby="{self.ident}-title" font-size="13" font-family="inherit" '
            f'style="max-width:100%;height:auto">'
        )
        defs = (
            f'<defs><marker id="{self.ident}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="currentColor"/>'
            f"</marker></defs>"
        )
        return "\n".join([head, f'<title id="{self.ident}-title">{escape(title)}</title>', defs, *self.items, "</svg>"])


def wiring_svg(wiring: Wiring, layers: int = 3, *, output_layer: bool = False, ident: str = "wiring") -> str:
    """An SVG diagram of ``wiring``: ``layers`` layers x its directions, with what reads what.

    Parameters
    ----------
    wiring : Wiring
    layers : int, default 3
        Layers drawn (``layer 0`` .. ``layer layers-1``); the layers above the first all read alike.
    output_layer : bool, default False
        Draw an output layer on top (always drawn when the wiring places labels there).
    ident : str
        Prefix of the SVG's element ids (unique per page).

    Returns
    -------
    str
        One ``<svg>`` element, without blank lines (safe inside Markdown).

    Raises
    ------
    ValueError
        ``layers`` < 1.
    """
    if not isinstance(layers, int) or layers < 1:
        raise ValueError(f"layers must be an int >= 1, got {layers!r}")
    labels = wiring.labels
    output_layer = output_layer or (labels is not None and "output" in labels.placement)
    elementwise = wiring.merge in _MERGE_SIGN
    shared = bool(wiring.shared)
    D = wiring.num_directions
    margin = _MARGIN + (24 if output_layer and labels is not None else 0)
    width = 2 * margin + (2 * _BOX_W + 80 if D == 2 else _BOX_W + 220)
    xs = [margin + _BOX_W / 2 + k * (_BOX_W + 80) for k in range(D)] if D == 2 else [width / 2]
    middle = sum(xs) / D

    # rows from the bottom: input, [shared node], layer 0, [merge, [shared], layer 1] ..., top, [output]
    rows: list[tuple[str, int | None]] = [("input", None)]
    layer: int | None
    for layer in range(layers):
        if layer and elementwise:
            rows.append(("merge", layer))
        if shared:
            rows.append(("shared", layer))
        rows.append(("layer", layer))
    rows.append(("top", None))
    if output_layer:
        rows.append(("output", None))
    heights = {"input": _ROW, "shared": 64, "merge": 62, "layer": _ROW, "top": 70, "output": 80}
    height = 2 * _MARGIN + sum(heights[kind] for kind, _ in rows) - 30
    y = height - _MARGIN - _BOX_H / 2
    ys: dict[tuple[str, int | None], float] = {}
    for kind, layer in rows:
        ys[(kind, layer)] = y
        y -= heights[kind]

    canvas = _Canvas(ident)
    top_half = _BOX_H / 2

    # input row
    input_y = ys[("input", None)]
    x_input = middle
    label_x: float | None = None
    if labels is not None:  # the label box under its conditioning direction, the input beside it
        label_x = xs[labels.direction]
        x_input = middle + (label_x - middle) * -0.35
    canvas.box(x_input, input_y, ["input xₜ", f"{width_text(I)} features"], w=150)
    if labels is not None:
        text = "cₜ₋₁" if labels.posterior == "forward" else "cₜ₊₁"
        assert label_x is not None  # set with labels
        canvas.box(label_x, input_y, [f"label {text}", f"one-hot, {width_text(labels.classes)}"], w=150, dashed=True)

    def box_lines(layer: int, d: int) -> list[str]:
        read = width_text(wiring.layer_input_size(layer, I, H, d))
        head = f"layer {layer} {wiring.directions[d]} {_ARROWS[wiring.directions[d]]}"
        return [head, f"reads {read}, emits {width_text(H)}"]

    def sources(layer: int) -> dict[int, list[tuple[float, float]]]:
        """Points (x, y_top) of what layer ``layer``'s directions read, per direction."""
        if layer == 0:
            return {d: [(x_input, input_y - top_half)] for d in range(D)}
        below = ys[("layer", layer - 1)] - top_half
        if elementwise:
            m = ys[("merge", layer)]
            return {d: [(middle, m - 15)] for d in range(D)}
        return {d: [(xs[s], below) for s in wiring.reads(d)] for d in range(D)}

    for layer in range(layers):
        ly = ys[("layer", layer)]
        for d in range(D):
            canvas.box(xs[d], ly, box_lines(layer, d))
        if elementwise and layer:
            m = ys[("merge", layer)]
            canvas.node(middle, m, _MERGE_SIGN[wiring.merge])
            below = ys[("layer", layer - 1)] - top_half
            for d in range(D):
                canvas.arrow(xs[d], below, middle + (d - 0.5) * 14, m + 15)
        src = sources(layer)
        if shared:
            sy = ys[("shared", layer)]
            roles = ", ".join("W_" + group if kind == "weight" else "b_" + group for kind, group in wiring.shared)
            canvas.box(middle, sy, [f"{roles} shared"], w=150, h=26, rounded=13)
            points = sorted({p for d in range(D) for p in src[d]})
            for k, (x, y0) in enumerate(points):
                canvas.arrow(x, y0, middle + (k - (len(points) - 1) / 2) * 16, sy + 13)
            for d in range(D):
                canvas.arrow(middle + (d - 0.5) * 40, sy - 13, xs[d] + (0.5 - d) * 30, ly + top_half)
        else:
            for d in range(D):
                for x, y0 in src[d]:
                    dx = 0 if x == xs[d] else (x - xs[d]) * 0.12
                    canvas.arrow(x + (xs[d] - x) * 0.12 if x != xs[d] else x, y0, xs[d] + dx, ly + top_half)
        if layer == 0 and labels is not None and "states" in labels.placement:
            d = labels.direction
            assert label_x is not None  # set with labels
            canvas.arrow(label_x, input_y - top_half, xs[d], ly + top_half, dashed=True)

    # top: what the stack hands on
    ty = ys[("top", None)]
    last = ys[("layer", layers - 1)] - top_half
    top_width = width_text(wiring.top_size(H))
    if D == 1:
        canvas.box(middle, ty, [f"output hₜ, {top_width}"], w=160, h=28, rounded=14)
        canvas.arrow(xs[0], last, middle, ty + 14)
    else:
        label = f"{wiring.merge} ({_MERGE_SIGN[wiring.merge]})" if elementwise else "concat [→ ; ←]"
        canvas.box(middle, ty, [f"{label}, {top_width}"], w=170, h=28, rounded=14)
        for d in range(D):
            canvas.arrow(xs[d], last, middle + (d - 0.5) * 40, ty + 14)
    if output_layer:
        oy = ys[("output", None)]
        in_width = width_text(wiring.output_layer_input_size(H))
        canvas.box(middle, oy, ["output layer yₜ = W_y vₜ + b_y", f"reads {in_width}"], w=240)
        canvas.arrow(middle, ty - 14, middle, oy + top_half)
        if labels is not None and "output" in labels.placement:  # around the outside of its column
            assert label_x is not None  # set with labels
            side = -1 if label_x < middle else 1
            outer = label_x + side * (_BOX_W / 2 + 14)
            canvas.path(
                [(label_x + side * 75, input_y), (outer, input_y), (outer, oy), (middle + side * 120, oy)], dashed=True
            )

    title = f"{wiring.name}: {layers} layers x {D} direction(s), what each reads"
    return canvas.render(int(width), int(height), title)
