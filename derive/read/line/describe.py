"""A torch or Keras constructor on the command line (:mod:`derive.torch`, :mod:`derive.keras`), and
:func:`describe`, everything the command line prints for any framework's constructor, as data."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ..._sympy import sympy
from ...engine.closed_forms import ClosedForm
from ...engine.symbols import Size, plain
from ..pasted import is_legacy
from .formula import instantiate, keras_formula, torch_formula
from .parse import InputError, _Call, classify, dotted, parse, parse_text

if TYPE_CHECKING:
    from ..report import Report

__all__ = ["describe", "explain_line"]


def _with_defaults(call: _Call, defaults: dict[str, dict[str, object]]) -> _Call:
    """A copy of ``call`` with ``defaults[class]`` added where the constructor leaves them out."""

    def walk(value: Any) -> Any:
        if isinstance(value, _Call):
            return _with_defaults(value, defaults)
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    kwargs = {k: walk(v) for k, v in call.kwargs.items()}
    for argument, value in defaults.get(call.name, {}).items():
        kwargs.setdefault(argument, value)
    return _Call(call.name, [walk(a) for a in call.args], kwargs)


def _names(call: _Call) -> set[str]:
    """Every class named in ``call``, nested calls included."""
    found = {call.name}
    for value in [*call.args, *call.kwargs.values()]:
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, _Call):
                found |= _names(item)
    return found


def _without_inputs(call: _Call) -> _Call:
    """A copy of ``call`` without the input arguments (:data:`derive.keras.KERAS_INPUT_KWARGS`),
    nested calls included: they give the model's input, not the layer's weights."""
    from ...frameworks.keras import KERAS_INPUT_KWARGS

    def walk(value: Any) -> Any:
        if isinstance(value, _Call):
            return _without_inputs(value)
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    kwargs = {k: walk(v) for k, v in call.kwargs.items() if k not in KERAS_INPUT_KWARGS}
    return _Call(call.name, [walk(a) for a in call.args], kwargs)


def _first(call: _Call, obj: Any) -> tuple[_Call, Any]:
    """The call and mirror layer that read the input: a ``Sequential``'s first layer, else ``call``."""
    if call.name != "Sequential":
        return call, obj
    layers = call.args[0] if call.args else call.kwargs.get("layers")
    if not isinstance(layers, list) or not layers or not isinstance(layers[0], _Call):
        return call, obj
    return layers[0], obj.layers[0]


def _declared_width(call: _Call, obj: Any) -> tuple[Any, list[str]]:
    """The input width a Keras constructor's own input arguments give, and the notes to print.

    Keras 3 reads ``input_shape=`` and ``input_dim=`` on any layer (``keras/src/layers/layer.py``,
    ``Layer.__init__``: a warning, and a ``Sequential`` built on them); Keras 2 also read
    ``batch_input_shape=``, ``batch_size=`` and, for its recurrent layers, ``input_length=``
    (``keras/engine/base_layer.py``, ``keras/layers/recurrent.py``), which Keras 3 refuses. Keras 2
    read a wrapped layer's (``Bidirectional(LSTM(64, input_shape=(10, 8)))``); Keras 3 only the
    wrapper's. The width is the features axis of that shape (:meth:`Recurrent.features`: the
    channels of a ConvLSTM with ``data_format="channels_first"``), after the rank check Keras makes.
    """
    from ...frameworks.keras.constructors import KERAS_INPUT_KWARGS, declared_input

    owner, mirror = _first(call, obj)
    given = {k: v for k, v in owner.kwargs.items() if k in KERAS_INPUT_KWARGS}
    notes = []
    if not given and owner.name == "Bidirectional":
        inner = owner.args[0] if owner.args else owner.kwargs.get("layer")
        if isinstance(inner, _Call):
            given = {k: v for k, v in inner.kwargs.items() if k in KERAS_INPUT_KWARGS}
            if given:
                notes.append(
                    f"the input shape is read from the wrapped {inner.name} as Keras 2 reads it; Keras 3 reads it "
                    f"only from the wrapper: write {owner.name}({inner.name}(...), {', '.join(given)}=...)"
                )
    full = declared_input(given, mirror, owner.name)
    if full is None:
        if given:
            raise InputError(
                f"{owner.name}: {', '.join(given)} gives no input shape (give input_shape=(steps, features))"
            )
        return None, []
    shape = tuple(full[1:])
    try:
        mirror.build(shape)  # the rank Keras checks when it builds the layer
    except (TypeError, ValueError) as error:
        raise InputError(f"{owner.name}: input shape {full}: {error}") from None
    width = mirror.features(shape)
    if width is None:
        raise InputError(f"{owner.name}: the input shape {full} has no features axis")
    if "input_dim" in given and "input_shape" in given and given["input_shape"][-1:] != (given["input_dim"],):
        raise InputError(
            f"{owner.name}: input_dim={given['input_dim']} and input_shape={given['input_shape']} disagree "
            "(Keras 3 reads input_dim, Keras 2 input_shape): give one"
        )
    if "input_dim" in given and len(full) == 3 and not {"input_shape", "batch_input_shape"} & set(given):
        notes.append(
            f"input_dim={given['input_dim']}: the features per step, as Keras 2 reads it; Keras 3 reads it as "
            f"input_shape=({given['input_dim']},) and refuses that in a Sequential (expected ndim=3): write "
            f"input_shape=(None, {given['input_dim']})"
        )
    old = [k for k in given if k in ("batch_input_shape", "input_length", "batch_size")]
    if old:
        notes.append(
            f"{', '.join(old)}: Keras 2's spelling (Keras 3 refuses it: 'Unrecognized keyword arguments'); "
            "the weights are the same"
        )
    return width, notes


def _v1_layers(top: ast.expr) -> bool:
    """Whether the line's changed-default classes (GRU, GRUCell) are written ``tf.compat.v1.keras.layers.``
    (TF 2's v1 layers: Keras 2's defaults before 2.4); refused where some are and some are not."""
    from ...frameworks.keras.constructors import V1_PREFIX
    from ...frameworks.keras.versions import DEFAULT_CHANGES

    changed = {name for change in DEFAULT_CHANGES for name in change.layers}
    written = [dotted(n.func) or "" for n in ast.walk(top) if isinstance(n, ast.Call)]
    written = [w for w in written if w.rsplit(".", 1)[-1] in changed]
    v1 = [w.startswith(V1_PREFIX) for w in written]
    if any(v1) and not all(v1):
        raise InputError(
            f"{', '.join(written)}: {V1_PREFIX}GRU (reset_after=False) and Keras 3's GRU (reset_after=True) in one "
            "line; write one of them, or give reset_after="
        )
    return bool(v1) and all(v1)


def _keras_version(call: _Call, version: str | None, v1: bool = False) -> tuple[_Call, list[str]]:
    """``call`` with the defaults of Keras ``version`` applied (with ``v1``, no version asked:
    ``tf.compat.v1.keras.layers``' defaults), and the notes to print."""
    from ...frameworks import keras as dk

    notes = []
    old = sorted(_names(call) & set(dk.KERAS2_ONLY))
    if version is None and v1:
        defaults, _ = dk.version_defaults("2.3")
        notes.append(
            "tf.compat.v1.keras.layers: TF 2's v1 layers, GRU reset_after=False "
            "(tf_keras/src/layers/rnn/gru_v1.py; tf.keras.layers.GRU and Keras 3: reset_after=True)"
        )
        call = _with_defaults(call, defaults)
    if version is None:
        if old:
            notes.append(
                f"{', '.join(old)}: Keras 2 layers (keras 2.0.9-2.3, TF 1 tf.keras, TF 2 tf.compat.v1.keras.layers), "
                "not in Keras 3; weights named as Keras 2 names them"
            )
        return call, notes
    try:
        defaults, notes = dk.version_defaults(version)
    except ValueError as error:
        raise InputError(f"--keras-version: {error}") from None
    if old and version == "3":
        raise InputError(f"{', '.join(old)} do not exist in Keras 3 (its LSTM and GRU call cuDNN themselves)")
    return _with_defaults(call, defaults), notes


def describe(
    text: str,
    keras: bool = False,
    input_dim: Size | None = None,
    keras_version: str | None = None,
    framework: str | None = None,
) -> dict[str, Any]:
    """Everything the CLI prints for one constructor, as plain data.

    The framework is the one asked for (``framework``, or ``keras``), else the one the class
    belongs to (torch where several name it alike; :func:`derive.read.line.parse.classify`).

    Parameters
    ----------
    text : str
        The pasted constructor.
    keras : bool
        Read it as Keras 3's (as ``framework="keras"``).
    input_dim : int or None
        The last dimension of the layer's input: required for Keras layers that do not give their
        own input (``input_shape=``, ``input_dim=``, ``batch_input_shape=``) and for the classes of
        other frameworks that make their weights when first applied (Haiku, Flax linen, TF1 cells).
    keras_version : str or None
        Keras only: apply the constructor defaults of that Keras version (one of
        :data:`derive.keras.KERAS_VERSIONS`, e.g. ``"2.2"``: GRU ``reset_after=False``); None for
        Keras 3's.

    framework : str or None
        A framework key (``"torch"``, ``"keras"``, ``"haiku"``, ``"mlx"`` ...).

    Returns
    -------
    dict
        ``framework``, ``call`` (normalized), ``count``, ``tensors`` (name, shape, parameters),
        ``marks`` (per tensor: ``trainable`` False, ``buffer``, ``tied_to``; other frameworks),
        ``partial``,
        ``layers`` (per-layer counts, torch with an int ``num_layers`` up to
        :data:`derive.engine.stack.LISTED_LAYERS`), ``layer_sum`` (beyond that: ``num_layers``,
        ``layer0``, ``each_upper_layer``; else None), ``formula``,
        ``formula_latex``, ``values`` (the symbols' values), ``notes`` (the version defaults
        applied and where they changed; Keras 2 layers), ``object`` (the derive object).

    Raises
    ------
    InputError
        Refused input, or arguments the adapter refuses (its message).
    """
    from ...engine.stack import elided_layers, listed_rows

    if keras and framework not in (None, "keras"):
        raise InputError(f"--keras and --framework {framework} exclude each other")
    framework = "keras" if keras else framework
    if framework is None:
        kind, chosen = classify(text, None)
        framework = chosen if kind == "constructor" and chosen is not None else "torch"
    if keras_version is not None and framework != "keras":
        raise InputError("--keras-version is only for Keras constructors (--keras)")
    keras = framework == "keras"
    top = parse_text(text)
    if framework not in ("torch", "keras") or not is_legacy(framework, dotted(getattr(top, "func", top)) or ""):
        if framework in ("torch", "keras") and not isinstance(top, ast.Call):
            parse(text, keras)  # the strict parser's refusal
        from .registered import describe_registered

        if keras_version is not None:
            raise InputError("--keras-version applies to Keras' recurrent layers and their wrappers (LSTM, GRU, ...)")
        return describe_registered(text, framework, input_dim)
    rows: list[tuple[str, tuple[Any, ...] | None, Any]]
    layers: list[Any] = []
    layer_sum: dict[str, Any] | None = None
    call = parse(text, keras)
    notes: list[str] = []
    if keras:
        call, notes = _keras_version(call, keras_version, _v1_layers(top))
    try:
        if keras:
            from ...frameworks import keras as dk

            obj = instantiate(_without_inputs(call), True)
            declared, read_notes = _declared_width(call, obj)
            if declared is not None and input_dim is not None and declared != input_dim:
                raise InputError(f"--input-dim {input_dim} and the layer's own input shape ({declared}) disagree")
            if input_dim is None and declared is None:
                raise InputError(
                    "--input-dim is required for Keras layers (the features per time step), or write the "
                    "layer's input_shape=(steps, features)"
                )
            input_dim = declared if input_dim is None else input_dim
            notes += read_notes
            weights = dk.tensors(obj, input_dim)
            count = dk.count(obj, input_dim)
            from ...frameworks.keras.sequential import sequence

            module = sequence(obj, input_dim)
            rows = [(w.path, tuple(plain(d) for d in w.shape), plain(w.numel)) for w in weights]
            formula, values = keras_formula(_without_inputs(call), input_dim, count)
        else:
            if input_dim is not None:
                raise InputError(
                    "--input-dim is for layers that take their input width when first applied (Keras, Haiku, "
                    f"Flax linen, TF1 cells, MXNet with input_size=0): torch's {call.name} takes input_size"
                )
            obj = instantiate(call, False)
            count = obj.count
            module = obj.module()
            rows = [(n, None if s is None else tuple(plain(d) for d in s), plain(c)) for n, s, c in listed_rows(obj)[0]]
            formula, values = torch_formula(call, count)
            if isinstance(plain(obj.num_layers), int):
                if elided_layers(obj) is None:
                    layers = [plain(obj.layer_count(k)) for k in range(obj.num_layers)]
                else:  # the layer sum in closed form: nothing iterates layers
                    layer_sum = {
                        "num_layers": plain(obj.num_layers),
                        "layer0": plain(obj.layer_count(0)),
                        "each_upper_layer": plain(obj.layer_count(1)),
                    }
    except InputError:
        raise
    except (TypeError, ValueError) as error:
        raise InputError(f"{call.name}: {error}") from None
    return {
        "framework": "keras" if keras else "torch",
        "call": repr(obj),
        "count": plain(count),
        "tensors": rows,
        "layers": layers,
        "layer_sum": layer_sum,
        "formula": formula if type(formula) is int or isinstance(formula, ClosedForm) else sympy.expand(formula),
        "values": values,
        "notes": notes,
        "partial": False,
        "object": obj,
        "module": module,
    }


def explain_line(
    text: str, framework: str | None = None, input_dim: Size | None = None, keras_version: str | None = None
) -> Report:
    """The report of one constructor line, read as the command line reads it (:func:`describe`): the
    same tensors, total and closed form (:attr:`~derive.read.report.Report.formula`, in the line's letters).

    Parameters
    ----------
    text : str
        One call (``"nn.LSTM(32, 128, 2, bidirectional=True)"``, ``"hk.LSTM(128)"``).
    framework : str, optional
        Its framework (default: the one its class belongs to, torch where several name it alike).
    input_dim : int, optional
        The input width, for a class that makes its weights when first applied (Keras, Haiku, ...).
    keras_version : str, optional
        Keras: the defaults of that version (``"2.2"``).

    Returns
    -------
    derive.read.report.Report

    Raises
    ------
    InputError
        See :func:`describe`.

    Examples
    --------
    >>> report = explain_line("nn.LSTM(32, 128, 2, bidirectional=True)")
    >>> report.total, str(report.formula), report.formula_values
    (561152, '24*H**2*L - 16*H**2 + 8*H*I + 16*H*L', {'I': 32, 'H': 128, 'L': 2})
    """
    from ..report import Report

    info = describe(text, False, input_dim, keras_version, framework)
    module = info["module"]
    formula = info["formula"]
    closed = (plain(formula), dict(info["values"])) if formula is not None else None
    return Report.from_module(
        module, info["framework"], f"{info['framework']}: {info['call']}", notes=list(info["notes"]), closed_form=closed
    )
