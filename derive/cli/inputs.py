"""What the command line was given: decided once, from the options and the parsed text, never by trying.

In this order: ``--explain-error`` is an error message; ``-`` is model code on stdin; JSON text of
an object (given or on stdin) is a config, as copied out of a ``config.json``; a path that
exists is a file (code, checkpoint or config, read by :func:`derive.read.explain`); text on
several lines is model code unless it is one call and nothing else (a constructor pasted as its
asker wrapped it, one argument a line: :func:`derive.read.pasted.one_call`), read as the call on
one line is; one line is parsed as one Python expression (never evaluated) and is a
*constructor* when it is a call of a class registered for a framework (:mod:`derive.engine.constructors`, plus the torch and Keras recurrent classes of
:mod:`derive.read.line.parse`) whose arguments are literals, and *model code* otherwise — decided by
:func:`derive.read.pasted.line_framework`, the rule :func:`derive.explain` follows too. A class
that several frameworks name alike is torch's unless a framework is asked for (``--framework``,
``--keras``) or its arguments are Keras' (``GRU(16, input_dim=4)``); two other frameworks alike
are refused, naming the option that chooses.

>>> classify("nn.LSTM(32, 128)", None), classify("nn.LSTM(32, 128)", "mlx")
(('constructor', 'torch'), ('constructor', 'mlx'))
>>> classify("hk.LSTM(128)", None), classify("nn.Sequential(nn.LSTM(8, 16))", None)
(('constructor', 'haiku'), ('code', None))
>>> classify("nn.LSTM(x, 2)", None)  # a name that is not a size symbol: read as code
('code', None)
"""

from __future__ import annotations

import sys
from typing import Any

from ..engine.constructors import frameworks
from ..read.configs.pretrained import is_json_text
from ..read.dispatch import MAX_MESSAGE, MAX_TEXT, Input, decide_text
from ..read.line.parse import InputError, classify
from ..read.pasted import CODE_READERS, load_registries

__all__ = ["Input", "decide", "classify", "framework_asked", "read_stdin"]


def framework_asked(torch: bool, keras: bool, name: str | None) -> str | None:
    """The framework the options ask for, or None.

    Parameters
    ----------
    torch, keras : bool
        ``--torch``, ``--keras``.
    name : str or None
        ``--framework``.

    Returns
    -------
    str or None

    Raises
    ------
    InputError
        More than one asked for; an unknown ``--framework``.
    """
    given = [o for o, on in (("--keras", keras), ("--torch", torch), (f"--framework {name}", name)) if on]
    if len(given) > 1:
        raise InputError(f"{' and '.join(given)} exclude each other")
    if keras or torch:
        return "keras" if keras else "torch"
    if name is None:
        return None
    load_registries()
    known = list(dict.fromkeys([*CODE_READERS, *frameworks()]))
    if name not in known:
        raise InputError(f"--framework must be one of {', '.join(known)}; got {name!r}")
    return name


def read_stdin(limit: int, what: str) -> str:
    """Standard input, refused beyond ``limit`` characters (never cut silently).

    Parameters
    ----------
    limit : int
    what : str
        What is read, for the message.

    Returns
    -------
    str

    Raises
    ------
    InputError
        No stdin, or more than ``limit`` characters.
    """
    if sys.stdin is None:
        raise InputError(f"- reads {what} from stdin, but there is no stdin")
    try:
        text = sys.stdin.read(limit + 1)
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {what} from stdin: {error}") from None
    if len(text) > limit:
        raise InputError(f"{what} on stdin longer than {limit:,} characters")
    return text


def decide(args: Any) -> Input:
    """What the parsed options and INPUT ask to read (reads stdin for ``-``): the options' part of the
    decision; what the text is, :func:`derive.read.dispatch.decide_text` decides, as for :func:`derive.explain`.

    Parameters
    ----------
    args : argparse.Namespace
        From :func:`derive.cli.options.parser`.

    Returns
    -------
    Input
        ``kind`` ``"error"``, ``"code"``, ``"file"``, ``"config"`` or ``"constructor"``; ``value`` the text
        (the message, the code, the path, the config's JSON text, the line).

    Raises
    ------
    InputError
        Conflicting or missing input, a missing file, and the refusals of :func:`classify`.
    """
    framework = framework_asked(args.torch, args.keras, args.framework)
    if args.explain_error is not None:
        if args.input is not None:
            raise InputError("give an error message (--explain-error) or an INPUT, not both")
        text = args.explain_error
        return Input("error", read_stdin(MAX_MESSAGE, "the error message") if text == "-" else text, None)
    text = args.input
    if text is None:
        raise InputError("nothing to read: give a constructor, model code, a FILE, or - for stdin (see derive --help)")
    if text == "-":
        _code_framework(framework)  # before reading: stdin holds model code or a config, neither of them its
        text = read_stdin(MAX_TEXT, "model code or a config")
        return _config(text, framework) if is_json_text(text) else Input("code", text, framework)
    try:
        given = decide_text(text, framework)
    except FileNotFoundError as error:
        raise InputError(str(error)) from None
    if given.kind == "config":
        return _config(given.value, framework)
    if given.kind in ("code", "file"):
        _code_framework(framework)
    return given


def _code_framework(framework: str | None) -> None:
    """Refuse a framework asked for whose model code derive does not read."""
    if framework not in (None, *CODE_READERS):
        raise InputError(
            f"model code is read for PyTorch, Keras and TF1; {framework} classes are read one constructor line at a "
            f"time: give derive the line that builds the model, with its sizes written in, and --framework "
            f"{framework} (--input-dim N for the input's features)"
        )


def _config(text: str, framework: str | None) -> Input:
    if framework is not None:
        raise InputError(
            "a config's model_type gives its framework (transformers or mamba_ssm): leave out the framework option"
        )
    return Input("config", text, None)
