"""What the command line was given: decided once, from the options and the parsed text, never by trying.

In this order: ``--explain-error`` is an error message; ``-`` is model code on stdin; a path that
exists is a file (code, checkpoint or config, read by :func:`derive.models.explain`); text on
several lines is model code; one line is parsed as one Python expression (never evaluated) and
is a *constructor* when it is a call of a class registered for a framework
(:mod:`derive.engine.constructors`, plus the torch and Keras recurrent classes of
:mod:`derive.cli.parse`) whose arguments are literals, and *model code* otherwise. A class that
several frameworks name alike is torch's unless a framework is asked for (``--framework``,
``--keras``); two other frameworks alike are refused, naming the option that chooses.

>>> classify("nn.LSTM(32, 128)", None), classify("nn.LSTM(32, 128)", "mlx")
(('constructor', 'torch'), ('constructor', 'mlx'))
>>> classify("hk.LSTM(128)", None), classify("nn.Sequential(nn.LSTM(8, 16))", None)
(('constructor', 'haiku'), ('code', None))
>>> classify("nn.LSTM(x, 2)", None)  # a name that is not a size symbol: read as code
('code', None)
"""

from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass
from typing import Any

from ..engine.constructors import find, frameworks
from .parse import (
    KERAS_CELLS,
    KERAS_LAYERS,
    KERAS_PREFIXES,
    KERAS_WRAPPERS,
    SYMBOLS,
    TORCH_CLASSES,
    TORCH_PREFIXES,
    InputError,
    dotted,
    parse_text,
)

__all__ = ["Input", "decide", "classify", "candidates", "load_registries", "is_legacy", "CODE_READERS", "MAX_STDIN"]

#: Frameworks whose model code :func:`derive.models.explain_code` reads.
CODE_READERS = ("torch", "keras")
#: Most characters of model code read from stdin (a model file is far shorter).
MAX_STDIN = 300_000
#: Most characters of an error message read from stdin.
MAX_MESSAGE = 200_000
#: File names read as files even when they do not exist (then refused as missing, not read as code).
PATH_SUFFIXES = (".py", ".pt", ".pth", ".bin", ".safetensors", ".keras", ".onnx", ".json", ".h5")
_KERAS_ALL = KERAS_LAYERS + KERAS_CELLS + KERAS_WRAPPERS


@dataclass(frozen=True)
class Input:
    """The input, as decided.

    Attributes
    ----------
    kind : {"error", "code", "file", "constructor"}
    text : str
        The message, the code, the path or the constructor.
    framework : str or None
        A constructor's framework; for code and files, the framework asked for (None: read
        from the code).
    """

    kind: str
    text: str
    framework: str | None


def load_registries() -> None:
    """Import the packages whose modules register constructors (framework mirrors, blocks)."""
    import derive.blocks
    import derive.frameworks  # noqa: F401


def is_legacy(framework: str, name: str) -> bool:
    """Whether ``name`` is one of the torch or Keras recurrent classes read by :mod:`derive.cli.parse`.

    Parameters
    ----------
    framework : str
    name : str
        A dotted name as written (``"nn.LSTM"``, ``"layers.Bidirectional"``).

    Returns
    -------
    bool
    """
    base = name.rsplit(".", 1)[-1]
    prefix = name[: len(name) - len(base)]
    if framework == "torch":
        return prefix in TORCH_PREFIXES and base in TORCH_CLASSES
    return framework == "keras" and prefix in KERAS_PREFIXES and base in _KERAS_ALL


def candidates(name: str) -> list[str]:
    """The frameworks with a class written ``name`` (``"nn.LSTM"``), torch and Keras first.

    Parameters
    ----------
    name : str
        A dotted name as written.

    Returns
    -------
    list of str
    """
    load_registries()
    found = [fw for fw in CODE_READERS if is_legacy(fw, name)]
    return found + [c.framework for c in find(name) if c.framework not in found]


def _is_code(call: ast.Call, framework: str) -> bool:
    """Whether a torch or Keras call holds what only the model-code reader reads: a name that
    is not a size symbol, or a call (torch) or a call of anything but the framework's recurrent
    classes (Keras, whose wrappers take layers: ``Bidirectional(LSTM(64))``)."""
    pending: list[ast.expr] = [*call.args, *(k.value for k in call.keywords)]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Name) and node.id not in SYMBOLS and node.id not in ("True", "False", "None"):
            return True
        if isinstance(node, (ast.List, ast.Tuple)):
            pending.extend(node.elts)
        elif isinstance(node, ast.Call):
            name = dotted(node.func)
            # torch's classes take no layer as an argument: a call inside one is a container of
            # layers (nn.Sequential(nn.LSTM(3, 4))), which the model-code reader reads
            if name is None or framework == "torch" or not is_legacy(framework, name):
                return True
            pending.extend([*node.args, *(k.value for k in node.keywords)])
    return False


def classify(text: str, framework: str | None) -> tuple[str, str | None]:
    """Whether one line is a constructor (and of which framework) or model code.

    Parameters
    ----------
    text : str
        One line.
    framework : str or None
        The framework asked for (``--framework``, ``--torch``, ``--keras``).

    Returns
    -------
    (str, str or None)
        ``("constructor", framework)`` or ``("code", framework asked for or None)``.

    Raises
    ------
    InputError
        Not one expression; not a call of a name; a class of another framework than the one asked
        for; a class several frameworks other than torch name alike, with none asked for.
    """
    node = parse_text(text)
    if not isinstance(node, ast.Call):
        raise InputError("expected one constructor call, e.g. nn.LSTM(32, 128, 2, bidirectional=True)")
    name = dotted(node.func)
    if name is None:
        raise InputError("only a call of a class name is allowed (e.g. LSTM(32, 128) or nn.GRU(10, 20))")
    found = candidates(name)
    if framework is not None:
        if framework not in found:
            if found and framework in CODE_READERS:
                raise InputError(
                    f"{name} is not a {framework} class derive reads as a constructor: it is "
                    f"{' and '.join(found)}'s (drop --{framework}, or say --framework {found[0]})"
                )
            if framework in CODE_READERS:
                _known_elsewhere(name, node)
                return "code", framework
            raise InputError(f"{name} is not a class of {framework} that derive knows ({_known(framework)})")
        chosen = framework
    elif not found:
        _known_elsewhere(name, node)
        return "code", None
    elif "torch" in found or len(found) == 1:
        chosen = "torch" if "torch" in found else found[0]
    else:
        choices = " or ".join(f"--framework {fw}" for fw in found)
        raise InputError(f"{name} is a class of {', '.join(found)}: say which with {choices}")
    if chosen in CODE_READERS and _is_code(node, chosen):
        return "code", framework
    return "constructor", chosen


def _known_elsewhere(name: str, node: ast.Call) -> None:
    """Refuse one call with literal arguments of a known class under a prefix derive does not know
    (``os.GRU(3, 4)``, ``torch.nn.modules.rnn.LSTM(1, 2)``): not read as code, where any prefix passes."""
    from ..engine.constructors import CONSTRUCTORS

    prefix, _, base = name.rpartition(".")
    if not prefix or _is_code(node, ""):
        return
    spelled = [f"{TORCH_PREFIXES[1]}{base} (torch)"] if base in TORCH_CLASSES else []
    spelled += [f"{KERAS_PREFIXES[1]}{base} (keras)"] if base in _KERAS_ALL else []
    spelled += [
        f"{next((p for p in c.prefixes if p), '')}{base} ({fw})" for (fw, n), c in CONSTRUCTORS.items() if n == base
    ]
    if spelled:
        raise InputError(f"unknown prefix {prefix + '.'!r} of {base}: write {', '.join(spelled)}")


def _known(framework: str) -> str:
    from ..engine.constructors import CONSTRUCTORS

    names = sorted({f"{(c.prefixes + ('',))[0]}{c.name}" for (fw, _), c in CONSTRUCTORS.items() if fw == framework})
    return "its classes: " + ", ".join(names) if names else "it has no registered classes"


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
    """What the parsed options and INPUT ask to read (reads stdin for ``-``).

    Parameters
    ----------
    args : argparse.Namespace
        From :func:`derive.cli.options.parser`.

    Returns
    -------
    Input

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
    if text == "-" or "\n" in text or ("(" not in text and os.path.exists(text)):
        if framework not in (None, *CODE_READERS):
            raise InputError(
                f"model code is read for PyTorch and Keras; {framework} classes are read one constructor at a time"
            )
    if text == "-":
        return Input("code", read_stdin(MAX_STDIN, "model code"), framework)
    if "\n" not in text and "(" not in text:
        if os.path.exists(text):
            return Input("file", text, framework)
        if text.lower().endswith(PATH_SUFFIXES) or "/" in text or os.sep in text:
            raise InputError(f"no such file: {text}")
    if "\n" in text:
        return Input("code", text, framework)
    kind, chosen = classify(text, framework)
    return Input(kind, text, chosen)
