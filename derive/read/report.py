"""What :func:`derive.explain` returns: a per-layer table and the total, as text, HTML, LaTeX or JSON.

A :class:`Report` lists :class:`Row` s (layer name, type, parameters, closed form, output shape)
and, for checkpoints, the constructors that give exactly the tensors read. ``to_dict()`` is the
CLI's ``--json``: ``{"total": int, "layers": [{"name", "type", "params", "formula",
"output_shape"}, ...]}`` (``total`` a string when it is a closed form).
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass, field
from typing import Any

from .._sympy import sympy
from ..engine.symbols import plain
from ..tree import Module, active, count, is_partial, named_parameters, numel, parts, uncounted
from .row import Row, jsonable, rows, show
from .source import clean

__all__ = ["Row", "Report", "show", "jsonable", "rows"]


def _is_language_model(module: Module) -> bool:
    """Whether the tree keeps an inference cache or routes experts anywhere."""
    return bool(module.cache) or module.routed is not None or any(_is_language_model(c) for c in module.children)


@dataclass
class Report:
    """A model explained: its layers, total, and what could not be known.

    :attr:`count` is the model's count, as on every object of derive; :attr:`total` is the same value
    under the report's (and the JSON's) name, beside :attr:`active`.

    Attributes
    ----------
    framework : str
        ``"torch"``, ``"keras"`` or ``"onnx"``.
    rows : list of Row
    title : str
    input_shape : tuple or None
    notes : list of str
        Caveats printed under the table (unknown layers, what shapes cannot tell).
    constructors : list of str
        For checkpoints: the constructors that rebuild the recurrent tensors.
    module : derive.tree.Module or None
        The model's tree, when the report was made from one (:meth:`from_module`).
    method : str
        ``"derived"`` (from the model's equations or its config's family) or ``"measured"`` (transformers
        built the model and derive read what it built: exact, no closed form; :mod:`derive.read.measured`).
    _tensors : list of dict or None
        The tensors listing as the file names them, when it differs from the tree's paths (set by
        :meth:`from_module`); None: listed from :attr:`module`.
    _closed_form : (sympy.Expr or int, dict) or None
        The total's closed form and its letters' values where the reader derived it in the user's own
        letters (set by :meth:`from_module`); None: the tree's (:attr:`formula`).
    """

    framework: str
    rows: list[Row]
    title: str = ""
    input_shape: Any = None
    notes: list[str] = field(default_factory=list)
    constructors: list[str] = field(default_factory=list)
    module: Module | None = None
    method: str = "derived"
    _tensors: list[dict[str, Any]] | None = field(default=None, repr=False, compare=False)
    _closed_form: tuple[Any, dict[str, Any]] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_module(
        cls,
        module: Module,
        framework: str,
        title: str = "",
        input_shape: Any = None,
        notes: list[str] | None = None,
        tensors: list[dict[str, Any]] | None = None,
        closed_form: tuple[Any, dict[str, Any]] | None = None,
    ) -> Report:
        """The report of a module tree: one row per layer (:func:`rows`), the tree kept for its tensors.

        Parameters
        ----------
        module : derive.tree.Module
            The model (its name is the prefix of every path; "" for a torch model).
        framework : str
        title : str
        input_shape : tuple, optional
        notes : list of str, optional
        tensors : list of dict, optional
            The tensors listing when the file names them otherwise than the tree's paths (ONNX
            initializers; buffers marked ``"buffer": True``); default: from the tree
            (:attr:`tensors`, :attr:`buffers`).
        closed_form : (sympy.Expr or int, dict), optional
            The total's closed form and its letters' values, where the reader derived it in the
            user's own letters (a constructor line); default: the tree's (:attr:`formula`).

        Returns
        -------
        Report
        """
        report = cls(framework, rows(module), title, input_shape, list(notes or []), module=module)
        report._tensors = tensors
        report._closed_form = closed_form
        return report

    @property
    def formula(self) -> Any:
        """The total's closed form (a SymPy expression in its letters), or None where derive has none:
        the reader's (a constructor line's, in the user's letters), else the tree's
        (:attr:`derive.tree.Module.formula`), else the one row's. SymPy is imported to build it."""
        return self._total_form()[0]

    @property
    def formula_values(self) -> dict[str, Any]:
        """The values of :attr:`formula`'s letters (``{"I": 32, "H": 128}``)."""
        return self._total_form()[1]

    def _total_form(self) -> tuple[Any, dict[str, Any]]:
        if self._closed_form is not None:
            form, values = self._closed_form
            to_sympy = getattr(form, "to_sympy", None)  # a kept form (derive.engine.closed_forms.ClosedForm)
            return (to_sympy() if to_sympy is not None else form), values
        recipe = self.module.formula if self.module is not None else None
        if recipe is not None:
            expr = recipe.expr
            if expr is not None:
                return expr, dict(recipe.values)
        if len(self.rows) == 1 and self.rows[0].formula is not None and self.rows[0].params is not None:
            return self.rows[0].formula, dict(self.rows[0].values)
        return None, {}

    @property
    def partial(self) -> bool:
        """Whether some part is not counted: :attr:`total` is then a lower bound."""
        if self.module is not None and is_partial(self.module):
            return True
        return any(row.params is None for row in self.rows)

    @property
    def uncounted(self) -> list[str]:
        """The names of the parts not counted: the rows without a count, or where every row is counted, the
        tree's modules derive could not count (a tower the built class leaves out: ``vision_tower``)."""
        names = [row.name for row in self.rows if row.params is None]
        if not names and self.module is not None and is_partial(self.module):
            names = [path or self.module.type for path, _ in uncounted(self.module)]
        return names

    def _listed(self, *, ties: bool = False, buffers: bool = False) -> list[tuple[str, Any]]:
        if self.module is None:
            return []
        try:
            return list(named_parameters(self.module, ties=ties, buffers=buffers))
        except ValueError:  # a symbolic number of copies (num_layers=L): no tensor list; the count is exact
            return []

    @property
    def tensors(self) -> list[dict[str, Any]]:
        """Every parameter tensor once, named as the framework names it (``named_parameters()`` for
        torch, weight paths for Keras): ``[{"name", "shape", "parameters"}]``, with ``"trainable":
        False`` for a frozen one. Tied tensors once (see :attr:`ties`), buffers left out (see
        :attr:`buffers`): the parameters listed add up to :attr:`total`. Empty when the names are
        not known.
        """
        if self._tensors is not None:
            return [t for t in self._tensors if not t.get("buffer")]
        if self.module is None:
            return [
                {"name": name, "shape": tuple(shape), "parameters": numel(tuple(shape))}
                for row in self.rows
                for name, shape in row.tensors
            ]
        out = []
        for name, p in self._listed():
            entry: dict[str, Any] = {"name": name, "shape": p.shape, "parameters": p.numel}
            if not p.trainable:
                entry["trainable"] = False
            if p.complex:
                entry["complex"] = True
            out.append(entry)
        return out

    @property
    def buffers(self) -> list[dict[str, Any]]:
        """The buffers (``running_mean``, ``num_batches_tracked``; ``named_buffers()``), never counted:
        ``[{"name", "shape"}]``."""
        if self._tensors is not None:
            return [{"name": t["name"], "shape": t["shape"]} for t in self._tensors if t.get("buffer")]
        return [{"name": name, "shape": p.shape} for name, p in self._listed(buffers=True) if p.buffer]

    @property
    def ties(self) -> list[dict[str, Any]]:
        """The names tied to another tensor (``decoder.weight`` to ``encoder.weight``), counted there:
        ``[{"name", "shape", "tied_to"}]`` (as ``state_dict()`` lists them beside ``named_parameters()``)."""
        listed = self._listed(ties=True)
        return [{"name": name, "shape": p.shape, "tied_to": p.tied_to} for name, p in listed if p.tied_to]

    @property
    def layers(self) -> list[Row]:
        """The rows (one per layer)."""
        return self.rows

    @property
    def count(self) -> Any:
        """The model's parameters: the spelling of the count shared by every object of derive
        (``derive.torch.LSTM(...).count``, ``derive.keras.LSTM(..., input_dim=...).count``); the same
        value as :attr:`total`, its name in the report and the JSON (beside ``active``).

        Returns
        -------
        int or sympy.Expr
            An ``int`` when every size is an int, else a closed form; a lower bound when :attr:`partial`.
        """
        return self.total

    @property
    def total(self) -> Any:
        """Sum of the known layers' parameters (an int, or a closed form with symbolic sizes): the
        report's and the JSON's name for :attr:`count`."""
        if self.module is not None:
            return count(self.module)
        known = [row.params for row in self.rows if row.params is not None]
        if all(type(p) is int for p in known):  # the usual case: plain ints, summed without SymPy
            return sum(known)
        total = sympy.Integer(0)
        for params in known:
            total += params
        return plain(sympy.expand(total))

    @property
    def active(self) -> Any:
        """Parameters one token uses (:func:`derive.tree.active`), for a language model's tree; None otherwise.

        The Hugging Face Hub's definition (huggingface.js PR #2182, "Compute MoE active parameter
        count"): every parameter except the routed experts a token does not visit — of each layer's
        E routed experts, top_k count; embeddings, the head, routers, shared experts and norms are
        active; tied tensors count once. A dense model's active count is its total. Given for a
        tree that keeps an inference cache or routes experts (a language model), None for others.
        """
        if self.module is None or not _is_language_model(self.module):
            return None
        return active(self.module)  # None where the tree says it is not known (Module.unknown)

    @property
    def parts(self) -> list[dict[str, Any]] | None:
        """Where a language model's parameters sit: ``[{"part", "parameters", "active"}]`` in the order
        of :data:`derive.tree.PARTS` (embeddings, attention, recurrent mixers, MLP, routers, routed
        experts, shared experts, hyper-connections, learned residuals, per-layer inputs, vision, norms, head); None for a tree that is not a language model, that
        does not place every tensor (no part is guessed), or that is all one part (an ``nn.LSTM``:
        the total says it).

        Units: parameters; ``"parameters"`` add up to :attr:`total`, ``"active"`` (those one token
        uses, as :attr:`active` counts them) to :attr:`active`. Each tensor is in the part of the
        outermost module that declares one (:func:`derive.tree.parts`): QK-norms with attention,
        a mixer's own norms with the mixer.
        """
        if self.module is None or not _is_language_model(self.module) or active(self.module) is None:
            return None
        whole, used = parts(self.module), parts(self.module, used=True)
        if "other" in whole or len(whole) < 2:
            return None
        return [{"part": p, "parameters": n, "active": used.get(p, 0)} for p, n in whole.items()]

    @property
    def recurrent(self) -> list[Row]:
        """The rows with an inferred constructor configuration."""
        return [r for r in self.rows if r.config is not None]

    def to_dict(self) -> dict[str, Any]:
        """The CLI's ``--json``.

        Returns
        -------
        dict
        """
        data: dict[str, Any] = {
            "framework": self.framework,
            "method": self.method,
            "total": jsonable(self.total),
            "layers": [r.to_dict() for r in self.rows],
            "tensors": [
                {**t, "shape": jsonable(t["shape"]), "parameters": jsonable(t["parameters"])} for t in self.tensors
            ],
            "partial": self.partial,
        }
        expr, values = self._total_form() if self.method == "derived" else (None, {})
        if expr is not None:  # the total's closed form (a number where it has no letters)
            data["formula"] = jsonable(sympy.expand(expr) if isinstance(expr, sympy.Basic) else expr)
            data["values"] = {k: jsonable(v) for k, v in values.items()}
        if self.active is not None:
            data["active"] = jsonable(self.active)
        if self.parts is not None:
            data["parts"] = [{k: jsonable(v) for k, v in p.items()} for p in self.parts]
        if self.buffers:
            data["buffers"] = [{**b, "shape": jsonable(b["shape"])} for b in self.buffers]
        if self.ties:
            data["ties"] = [{**t, "shape": jsonable(t["shape"])} for t in self.ties]
        if self.input_shape is not None:
            data["input_shape"] = jsonable(self.input_shape)
        if self.constructors:
            data["constructors"] = list(self.constructors)
        if self.notes:
            data["notes"] = list(self.notes)
        return data

    def text(self, width: int = 120) -> str:
        """The table as plain text (rich, no colour codes).

        Parameters
        ----------
        width : int
            Characters per line.

        Returns
        -------
        str
        """
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        buffer = io.StringIO()
        console = Console(file=buffer, width=width, color_system=None, highlight=False, soft_wrap=False)
        table = Table(title=Text(clean(self.title, 200)) if self.title else None, title_justify="left")
        for column, justify in (
            ("layer", "left"),
            ("type", "left"),
            ("output shape", "left"),
            ("parameters", "right"),
            ("formula", "left"),
        ):
            table.add_column(column, justify=justify, overflow="fold")  # type: ignore[arg-type]
        for row in self.rows:
            formula = ""
            if row.formula is not None and not (isinstance(row.formula, sympy.Basic) and row.formula.is_Integer):
                values = ", ".join(f"{k}={show(v)}" for k, v in row.values.items())
                formula = f"{row.formula}" + (f"  ({values})" if values else "")
            if row.note:
                formula = (formula + "  " if formula else "") + f"[{row.note}]"
            table.add_row(
                Text(clean(row.name, 60)),
                Text(clean(row.type, 40)),
                Text(show(row.output_shape) if row.output_shape is not None else ""),
                Text("?" if row.params is None else show(row.params)),
                Text(clean(formula, 300)),
            )
        table.add_section()
        table.add_row(Text("total"), Text(""), Text(""), Text(show(self.total)), Text(""))
        if self.active is not None and self.active != self.total:  # a dense model's is its total (JSON has both)
            table.add_row(Text("active per token"), Text(""), Text(""), Text(show(self.active)), Text(""))
        console.print(table)
        if self.parts is not None:
            console.print(self._parts_table())
        for constructor in self.constructors:
            console.print(Text(clean(constructor, 300)))
        for note in self.notes:
            console.print(Text("note: " + clean(note, 400)))
        if self.partial:
            missing = self.uncounted
            types = {path: m.type for path, m in uncounted(self.module)} if self.module is not None else {}
            types |= {row.name: row.type for row in self.rows if row.params is None}
            named = ", ".join(f"{clean(name, 60)} {clean(types.get(name, '?'), 40)}" for name in missing[:8])
            named += ", ..." if len(missing) > 8 else ""
            console.print(
                Text(
                    f"partial: the total is a lower bound; {len(missing)} part{'s' if len(missing) != 1 else ''} "
                    "not counted" + (f": {named}" if named else "")
                )
            )
        return buffer.getvalue()

    def _parts_table(self) -> Any:
        """Where the parameters sit, one row per part (an "active per token" column when it differs)."""
        from rich.table import Table
        from rich.text import Text

        assert self.parts is not None
        sparse = any(p["active"] != p["parameters"] for p in self.parts)
        table = Table(title="where the parameters sit", title_justify="left")
        table.add_column("part")
        table.add_column("parameters", justify="right")
        if sparse:
            table.add_column("active per token", justify="right")
        for p in self.parts:
            cells = [Text(p["part"]), Text(show(p["parameters"]))]
            table.add_row(*cells, *([Text(show(p["active"]))] if sparse else []))
        return table

    def __str__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        cells = "".join(
            f"<tr><td>{html.escape(r.name)}</td><td>{html.escape(r.type)}</td>"
            f"<td>{html.escape(show(r.output_shape) if r.output_shape is not None else '')}</td>"
            f"<td style='text-align:right'>{html.escape('?' if r.params is None else show(r.params))}</td>"
            f"<td>{html.escape('' if r.formula is None else str(r.formula))}</td></tr>"
            for r in self.rows
        )
        return (
            "<table><thead><tr><th>layer</th><th>type</th><th>output shape</th><th>parameters</th>"
            f"<th>formula</th></tr></thead><tbody>{cells}<tr><td><b>total</b></td><td></td><td></td>"
            f"<td style='text-align:right'><b>{html.escape(show(self.total))}</b></td><td></td></tr>"
            "</tbody></table>"
        )

    def _repr_latex_(self) -> str:
        total = self.total
        terms = [r.params for r in self.rows if r.params not in (None, 0)]

        def number(value: Any) -> str:
            return f"{int(value):,}".replace(",", "{,}")

        if isinstance(total, int):
            if len(terms) > 1 and all(isinstance(t, int) for t in terms):
                return "$N = " + " + ".join(number(t) for t in terms) + f" = {number(total)}$"
            return f"$N = {number(total)}$"
        return f"$N = {sympy.latex(total)}$"
