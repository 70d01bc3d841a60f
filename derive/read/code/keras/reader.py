"""Whole Keras models pasted as code, read by following the code: ``Sequential``, functional, subclassed.

The code is read with :mod:`ast` and evaluated by :mod:`derive.read.code.python` with Keras' semantics
(:mod:`derive.read.code.keras.semantics`) — nothing imported, nothing executed. Loops, helper
functions, conditions on known values, aliases (``RNN = layers.LSTM if x else layers.GRU``) and
classes (a custom ``keras.layers.Layer`` with ``build``/``add_weight``, a subclassed
``keras.Model``) are followed. The model is the one the code builds: the model assigned to
``model`` (else the last made at the top level: a ``Sequential``, ``keras.Model(inputs, outputs)``,
an object of a subclassed model called on an input), else a single layer expression, else the
layers called at the top level. The input shape is the one the code gives — ``Input(shape=...)``,
``input_shape=``, ``batch_input_shape=``, ``input_dim=``, ``input_length=`` (Embedding),
``model.build(...)`` — or ``input_dim`` given here (features per step), which must not contradict
the code. Weight paths are Keras' own (``model.weights``); the total is ``model.count_params()``.

>>> report = explain_keras("Sequential([Embedding(10000, 128), LSTM(64), Dense(1)])")
>>> [(r.name, r.params) for r in report.rows], report.total
([('embedding', 1280000), ('lstm', 49408), ('dense', 65)], 1329473)
>>> [t["name"] for t in report.tensors][:2]
['sequential/embedding/embeddings', 'sequential/lstm/lstm_cell/kernel']
"""

from __future__ import annotations

import ast
from typing import Any

from ...configs.keras_nodes import Node, _start
from ...configs.keras_program import KerasProgram
from ...report import Report
from ...source import SourceError, clean, parse_module
from ..python.interpreter import assigned
from ..python.values import Class, Function, Ref, Refused, Unknown, UserRaise
from .apply import apply, build_sequential
from .construct import supported
from .objects import KLayer, KTensor
from .semantics import KerasInterpreter
from .tree import model_rows, model_tree

__all__ = ["explain_keras", "SUPPORTED", "KerasProgram", "Node"]

#: Every Keras name the code reader knows.
SUPPORTED = tuple(supported())
_MODELS = ("sequential", "functional", "model")


class _Program:
    """What the top-level statements make: models, single layers, refusals."""

    def __init__(self) -> None:
        self.models: list[tuple[str | None, KLayer]] = []
        self.bare: list[KLayer] = []
        #: Layers a top-level assignment makes (``lstm = LSTM(64, input_shape=(10, 8))``): the answer
        #: where the code makes no model, applies no layer and defines no model class.
        self.assigned: list[KLayer] = []
        self.refusal: Exception | None = None

    def after(self, statement: ast.stmt, value: Any, error: Exception | None) -> None:
        if error is not None:
            self.refusal = self.refusal or error
            return
        targets = assigned(statement)
        name = targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None
        if isinstance(value, KLayer) and value.kind in _MODELS:
            self.models.append((name, value))
        elif isinstance(value, KLayer) and value.kind == "layer" and isinstance(statement, ast.Expr):
            self.bare.append(value)
        elif isinstance(value, KLayer) and value.kind == "layer" and targets:
            self.assigned.append(value)


def _sequential(reader: KerasInterpreter, model: KLayer, input_dim: Any) -> Report:
    if not model.layers:
        raise SourceError("the Sequential model has no layers")
    given = None if model.input_full is None else tuple(model.input_full[1:])
    if model.built and input_dim is None:
        shape = given
    else:
        shape = _start(model.layers, given or (None if model.built else None), input_dim, reader.notes)
        if not model.built:
            node = ast.Pass(lineno=model.line)
            try:
                model.output = build_sequential(reader, model, KTensor((None, *shape)), node)
            except Refused as refused:
                raise SourceError(str(refused)) from None
    assert shape is not None
    tree, listed = model_tree(reader, None, model.layers, "Sequential")
    title = f"Keras Sequential, input {(None, *shape)}" if shape[:1] != (Ellipsis,) else "Keras Sequential"
    return Report("keras", model_rows(tree, listed), clean(title), shape, reader.notes, module=tree)


def _bare(reader: KerasInterpreter, layer: KLayer, input_dim: Any) -> Report:
    given = None if layer.input_full is None else tuple(layer.input_full[1:])
    shape = _start([layer], given, input_dim, reader.notes)
    try:
        apply(reader, layer, [KTensor((None, *shape))], {}, ast.Pass(lineno=layer.line))
    except Refused as refused:
        raise SourceError(str(refused)) from None
    tree, listed = model_tree(reader, None, [layer], "Sequential")
    title = f"Keras Sequential, input {(None, *shape)}" if shape[:1] != (Ellipsis,) else "Keras Sequential"
    return Report("keras", model_rows(tree, listed), clean(title), shape, reader.notes, module=tree)


def _subclassed(reader: KerasInterpreter, model: KLayer) -> Report:
    if not model.tracked and not model.weights:
        model.path = model.path or model.name
    elif not model.built or model.path is None:
        raise SourceError(
            f"line {model.line}: {model.type} is never called on an input in the code, so its layers' weights are "
            f"not known; call it once, e.g. model(keras.Input(shape=...))"
        )
    tree, listed = model_tree(reader, model, list(model.tracked), model.type)
    return Report(
        "keras", model_rows(tree, listed), clean(f"{model.type} (keras.Model)"), None, reader.notes, module=tree
    )


def _uninstantiated(reader: KerasInterpreter) -> KLayer | None:
    """The last subclassed model class of the code (made with its defaults), when no model is made."""
    names = reader.module_frame.names
    classes = [v for v in names.values() if isinstance(v, Class) and reader.semantics.new_object(reader, v, ast.Pass())]
    models = [c for c in classes if any(isinstance(b, Ref) and b.path.endswith("Model") for b in c.mro())]
    if not models:
        return None
    cls = models[-1]
    init, _ = cls.lookup("__init__")
    node = ast.Call(ast.Name(cls.name, ast.Load()), [], [], lineno=cls.line, col_offset=0)
    if isinstance(init, Function):
        spec = init.node.args
        positional = [a.arg for a in (*spec.posonlyargs, *spec.args)][1:]
        required = positional[: len(positional) - len(init.defaults)]
        if required:
            raise SourceError(
                f"line {cls.line}: {cls.name} is never made in the code: its arguments "
                f"({', '.join(required)}) and its input shape are not known"
            )
    try:
        made = reader.instantiate(cls, [], {}, node)
    except (Refused, UserRaise) as error:
        raise SourceError(str(error)) from None
    return made if isinstance(made, KLayer) else None


def explain_keras(text: str, input_dim: Any = None, partial: bool = False) -> Report:
    """A Keras model's layers, counts, closed forms and output shapes, from its code.

    Parameters
    ----------
    text : str
        Python source: a model file, ``Sequential([...])``, ``model.add(...)`` lines, the functional
        API ending in ``Model(inputs, outputs)``, a subclassed ``keras.Model`` called on an input;
        one layer constructor is a one-layer model, a list of layers alone the ``Sequential`` of them.
    input_dim : int or sympy.Expr, optional
        Features per time step of a Sequential's input, when the code does not give its shape.
        Refused when it contradicts the code.
    partial : bool
        Count the known layers and mark unknown ones instead of refusing.

    Returns
    -------
    Report
        One row per layer (as ``model.layers``; no InputLayer), total = ``model.count_params()``;
        its module tree (:attr:`Report.module`) gives the tensors under Keras' paths (a
        Sequential's prefixed by its name, ``sequential/lstm/lstm_cell/kernel``).

    Raises
    ------
    SourceError
        Unreadable code; a layer derive does not know (with its line and the supported names); a
        size, an input shape or a condition that decides the layers built, which derive cannot
        know (the line and the name); an input shape that does not fit (Keras' wording); an
        unknown or contradicted input size.

    Examples
    --------
    >>> explain_keras("LSTM(64, input_shape=(100, 8))").total
    18688
    """
    tree = parse_module(text)
    reader = KerasInterpreter(partial)
    if _listed_sequential(tree):
        reader.notes.append(
            "the pasted list of layers read as Sequential([...]) of them, the model keras.Sequential builds"
        )
    implied = _implied_sequential(tree)
    if implied is not None:
        name, line = implied
        reader.notes.append(
            f"line {line}: {name}.add(...) on a {name} the code never makes: read as "
            f"{name} = Sequential() before it (the line the paste leaves out)"
        )
    program = _Program()
    reader.run(tree, program.after)
    if program.refusal is not None:
        raise SourceError(str(program.refusal))
    try:
        return _report(reader, program, input_dim)
    except (Refused, UserRaise) as error:
        raise SourceError(str(error)) from None
    except RecursionError:
        raise SourceError("code nested too deeply") from None


def _bound(tree: ast.Module) -> set[str]:
    """Every name the code binds anywhere (assigned, imported, defined, a parameter, a loop's or a
    handler's name)."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    return bound


def _implied_sequential(tree: ast.Module) -> tuple[str, int] | None:
    """The name of ``model.add(...)`` lines pasted without their ``model = Sequential()`` line.

    When the code's top-level statements call ``.add(...)`` on one name (and no other) that the code
    never binds, the ``Sequential()`` it was made by is put before the first of them in ``tree``
    (``Sequential.add`` is the only ``add`` of Keras' models and layers that adds a layer); the name
    and the line are returned. Otherwise ``tree`` is left as it is and None returned.
    """
    added = [
        (s, s.value.func.value.id)
        for s in tree.body
        if isinstance(s, ast.Expr)
        and isinstance(s.value, ast.Call)
        and isinstance(s.value.func, ast.Attribute)
        and s.value.func.attr == "add"
        and isinstance(s.value.func.value, ast.Name)
    ]
    names = {name for _, name in added}
    if len(names) != 1 or names & _bound(tree):
        return None
    first, name = added[0]
    made = ast.Assign([ast.Name(name, ast.Store())], ast.Call(ast.Name("Sequential", ast.Load()), [], []))
    tree.body.insert(tree.body.index(first), ast.fix_missing_locations(ast.copy_location(made, first)))
    return name, first.lineno


def _listed_sequential(tree: ast.Module) -> bool:
    """Whether the code is one list and nothing else (``[Bidirectional(LSTM(64, return_sequences=True)),
    LSTM(32)]``, the layers pasted out of a ``Sequential([...])``): then ``tree`` is made the
    ``Sequential`` of them, as ``keras.Sequential`` takes the list, and True returned; else ``tree`` is
    left as it is."""
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr) or not isinstance(tree.body[0].value, ast.List):
        return False
    statement = tree.body[0]
    made = ast.Call(ast.Name("Sequential", ast.Load()), [statement.value], [])
    statement.value = ast.fix_missing_locations(ast.copy_location(made, statement.value))
    return True


def _report(reader: KerasInterpreter, program: _Program, input_dim: Any) -> Report:
    if program.models:
        named = [m for name, m in program.models if name == "model"]
        model = (named or [m for _, m in program.models])[-1]
    elif program.bare:
        return _bare(reader, program.bare[-1], input_dim)
    else:
        applied = list(dict.fromkeys(_session_applied(reader)))
        if applied:
            if input_dim is not None:
                raise SourceError("input_dim does not apply to a functional model: its Input(shape=...) gives it")
            tree, listed = model_tree(reader, None, applied, "Model")
            return Report("keras", model_rows(tree, listed), "Keras model", None, reader.notes, module=tree)
        made = _uninstantiated(reader)
        if made is None and program.assigned:
            return _bare(reader, program.assigned[-1], input_dim)
        if made is None:
            raise SourceError(
                "no Keras model found: expected Sequential([...]), model.add(...), Model(inputs, outputs) "
                "or a subclassed keras.Model"
            )
        model = made
    if model.kind == "sequential":
        return _sequential(reader, model, input_dim)
    if input_dim is not None:
        raise SourceError("input_dim does not apply to a functional model: its Input(shape=...) gives it")
    if model.kind == "functional":
        tree, listed = model_tree(reader, None, [m for m in model.layers if m.kind != "input"], "Functional")
        title = "Keras functional model"
        return Report("keras", model_rows(tree, listed), title, None, reader.notes, module=tree)
    return _subclassed(reader, model)


def _session_applied(reader: KerasInterpreter) -> list[KLayer]:
    from .construct import session

    return [layer for layer in session(reader).applied if layer.kind != "input"]


def _unknown_value(value: Any) -> bool:
    return isinstance(value, Unknown)
