"""``derive.read``: whole models explained — pasted code, live objects, checkpoints, error messages.

One entry point, :func:`explain`, takes model code (Keras, PyTorch or TF1, read with :mod:`ast`, never
run), a path (``.py`` code; ``.pt``/``.pth``/``.bin``/``.safetensors``/``.keras``/``.onnx``
checkpoints), a state dict (names -> tensors or shapes) or a live ``torch.nn.Module`` / Keras
model, and returns a :class:`~derive.read.report.Report`: every layer with its parameters,
closed form and output shape, and the total. :func:`explain_error` reads a framework's error
message about a recurrent layer and names the constructor argument that differs.

The readers are grouped by the way in: :mod:`.code` (a constructor line, a model's code),
:mod:`.live` (live objects), :mod:`.files` (checkpoints and state dicts), :mod:`.configs`
(``config.json``, Keras configs) and :mod:`.errors` (error messages). What they share sits here:
:mod:`.source` (reading literals with :mod:`ast`, :exc:`~derive.read.source.SourceError`),
:mod:`.pasted` (which framework pasted text is written for), :mod:`.torch_recurrent` (torch's
recurrent modules as tree nodes) and the :class:`~derive.read.report.Report` (:mod:`.report`,
:mod:`.row`).

>>> report = explain("Sequential([Embedding(10000, 128), LSTM(64), Dense(1)])")
>>> report.total
1329473
>>> explain("nn.Sequential(nn.Embedding(1000, 64), nn.LSTM(64, 128))").total
163328
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .source import SourceError

if TYPE_CHECKING:
    from .report import Report, Row

__all__ = ["explain", "explain_code", "detect", "Report", "Row", "SourceError"]


def explain_code(text: str, framework: str | None = None, input_dim: Any = None, partial: bool = False) -> Report:
    """A model pasted as code, PyTorch, Keras or TF1 (detected from the names unless given).

    Parameters
    ----------
    text : str
        Python source, or a torch module as ``print(model)`` shows it
        (:func:`derive.read.code.pytorch.printed.explain_printed`).
    framework : {"torch", "keras", "tf1"}, optional
    input_dim : int, optional
        Keras: features per step of the input when the code does not give its shape; TF1: the
        features of the input its cells are applied to.
    partial : bool
        Count the known layers and mark unknown ones instead of refusing.

    Returns
    -------
    Report

    Raises
    ------
    SourceError
        See :func:`derive.read.code.keras.reader.explain_keras`, :func:`derive.read.code.pytorch.reader.explain_torch`
        and :func:`derive.read.code.tf1.reader.explain_tf1`.
    ValueError
        Unknown ``framework``.
    """
    from .code.pytorch.printed import explain_printed, is_printed

    if framework in (None, "torch") and is_printed(text):  # print(model)'s output
        if input_dim is not None:
            raise SourceError("input_dim is for Keras and TF1: a printed torch module shows its sizes itself")
        return explain_printed(text, partial)
    from .pasted import detect

    framework = framework or detect(text)
    if framework == "keras":
        from .code.keras.reader import explain_keras

        return explain_keras(text, input_dim, partial)
    if framework == "torch":
        if input_dim is not None:
            raise SourceError("input_dim is for Keras and TF1: torch constructors give input_size themselves")
        from .code.pytorch.reader import explain_torch

        return explain_torch(text, partial)
    if framework == "tf1":
        from .code.tf1.reader import explain_tf1

        return explain_tf1(text, input_dim, partial)
    raise ValueError(f"framework must be 'torch', 'keras' or 'tf1', got {framework!r}")


def _explain_text(text: str, framework: str | None, input_dim: Any, partial: bool, *, paths: bool = True) -> Report:
    """Text, decided as the command line decides it (:func:`derive.read.dispatch.decide_text`): a
    config's JSON, a path, model code, or one constructor line — read as the command line reads it
    (:func:`derive.read.line.describe.explain_line`: the same tensors, total and closed form)."""
    from .dispatch import decide_text
    from .line.parse import InputError

    try:
        given = decide_text(text, framework, allow_paths=paths)
    except InputError as error:
        raise SourceError(str(error)) from None
    return _read(given, framework, input_dim, partial)


def _read(given: Any, framework: str | None, input_dim: Any, partial: bool) -> Report:
    """The report of an input as :mod:`derive.read.dispatch` decided it: the one switch of readers."""
    kind, value = given.kind, given.value
    if kind == "live":
        from .live.objects import explain_object

        return explain_object(value)
    if kind == "config":
        from .measured import explain_config

        return explain_config(value)
    if kind == "constructor":
        from .pasted import LINE_PARSED

        if given.framework in LINE_PARSED:  # torch's and Keras' lines: their code readers (output shapes, Keras'
            # names) — the same tensors, total and closed form as the command line's — on the text as given
            return explain_code(given.source or value, framework, input_dim, partial)
    if kind == "constructor":
        from .line.describe import explain_line
        from .line.parse import InputError

        if partial:
            raise SourceError("partial applies to model code: a constructor is counted whole")
        try:
            return explain_line(value, given.framework, input_dim)
        except InputError as error:
            raise SourceError(str(error)) from None
    if kind == "code":
        return explain_code(value, framework, input_dim, partial)
    if kind == "state_dict":
        from .files.state_dict import explain_state_dict

        return explain_state_dict(value, complete=not partial)
    path = value  # a file: its reader by its suffix (derive.read.dispatch.SUFFIXES)
    from .dispatch import SUFFIXES

    what = SUFFIXES.get(os.path.splitext(path.lower())[1])
    if what == "code":
        from .code.python.packages import beside
        from .files.checkpoints import read_text

        with beside(path):  # the modules of the user's own beside the file, found first as Python does
            return explain_code(read_text(path), framework, input_dim, partial)
    if what == "text":  # text saved as it was pasted: print(model)'s output, a config, code
        from .files.checkpoints import read_text

        return _explain_text(read_text(path), framework, input_dim, partial, paths=False)
    if what == "config":
        from .measured import explain_config

        return explain_config(path)
    from .files.checkpoints import explain_file

    return explain_file(path)


def __getattr__(name: str) -> Any:
    """``Report``, ``Row`` and ``detect``, imported on first use."""
    if name in ("Report", "Row"):
        from . import report

        return getattr(report, name)
    if name == "detect":
        from .pasted import detect

        return detect
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def explain(obj: Any, framework: str | None = None, input_dim: Any = None, partial: bool = False) -> Report:
    """Explain a model: code, a file, a state dict or a live model object.

    Parameters
    ----------
    obj : str, os.PathLike, Mapping or model object
        Model code (a list of Keras layers alone is the ``Sequential`` of them), or one constructor of a
        registered framework (``hk.LSTM(128)``, ``RecurrentGemmaConfig()``: decided as the command line
        decides a line); a path to ``.py`` code or a checkpoint (``.pt``, ``.pth``, ``.bin``,
        ``.safetensors``, ``.keras``, ``.onnx``); a mapping of tensor names to tensors or shapes
        (a state dict: the same answer for tensors and for their shapes; with ``partial``, part of
        one, e.g. read off an error message); a ``torch.nn.Module`` or a
        Keras ``Model``/``Layer``.
    framework : str, optional
        Forces the framework of code (``"torch"``, ``"keras"``) or of a constructor (any framework
        that registers constructors: ``"equinox"``, ``"haiku"``, ...).
    input_dim : int, optional
        Keras code, or a constructor of a layer that makes its weights when first applied (Haiku,
        Flax linen): features per step of the input.
    partial : bool
        Code: count the known layers and mark unknown ones instead of refusing. A mapping: it holds
        only some of the model's tensors (what they cannot fix is marked unknown).

    Returns
    -------
    Report

    Raises
    ------
    SourceError
        Code or a file derive refuses (a ValueError).
    TypeError
        An object of another kind.
    FileNotFoundError
        A path that does not exist.

    Examples
    --------
    >>> explain({"weight_ih_l0": (512, 300), "weight_hh_l0": (512, 128)}).rows[0].config["input_size"]
    300
    """
    from .dispatch import decide
    from .source import InputError

    try:
        given = decide(obj, framework)
    except InputError as error:
        raise SourceError(str(error)) from None
    return _read(given, framework, input_dim, partial)
