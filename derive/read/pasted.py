"""Which framework pasted text is written for: the one rule, for the command line and :func:`derive.explain`.

One call (``nn.LSTM(32, 128)``, ``hk.LSTM(128)``,
``tf.compat.v1.nn.dynamic_rnn(LSTMCell(48), inputs)``) is decided by :func:`line_framework`: the
frameworks with a class written that way (:func:`candidates`: the torch and Keras recurrent
classes the strict constructor parser reads, then every class registered in
:mod:`derive.engine.constructors`), the one asked for, and, where several name the class alike
(``LSTM``: torch and Keras), the arguments: a keyword torch's class does not take
(``input_shape=``, ``return_sequences=``, ``units=``) or a single size (Keras' ``units``; torch's
classes take ``input_size`` and ``hidden_size``) is not torch's. A call over several lines
(:func:`one_call`) is decided as on one. A list of layers (``[Bidirectional(LSTM(64,
return_sequences=True)), LSTM(32)]``) is Keras code, the ``Sequential`` of them, where its layers
are Keras' by that rule (:func:`list_framework`). Other text on several lines, or a line that is no
constructor, is model code: :func:`detect` reads the names it uses. Where several frameworks write
a class alike, the one whose class takes the arguments is chosen (``nn.LSTMCell(features=128)``
is Flax linen's), torch's where its class does; two others alike are refused, naming
``--framework``.

>>> line_framework(ast.parse("GRU(16, input_dim=4)", mode="eval").body, None)
('constructor', 'keras')
>>> line_framework(ast.parse("GRU(16, 32)", mode="eval").body, None)
('constructor', 'torch')
>>> detect("tf.compat.v1.keras.layers.LSTM(8)"), detect("model = nn.Sequential(nn.LSTM(3, 4))")
('keras', 'torch')
>>> line_framework(ast.parse("[Bidirectional(LSTM(64, return_sequences=True)), LSTM(32)]", mode="eval").body, None)
('code', None)
>>> detect("[Bidirectional(LSTM(64, return_sequences=True)), LSTM(32)]")
'keras'
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any

from ..engine.constructors import CONSTRUCTORS, find
from ..engine.symbols import Letters
from ..frameworks.keras.constructors import PREFIXES as KERAS_PREFIXES
from .source import SourceError, dotted

__all__ = [
    "line_framework",
    "list_framework",
    "one_call",
    "assigned_call",
    "detect",
    "candidates",
    "is_legacy",
    "load_registries",
    "CODE_READERS",
    "LINE_PARSED",
    "SYMBOLS",
    "TORCH_CLASSES",
    "TORCH_PREFIXES",
    "TORCH_KEYWORDS",
    "KERAS_LAYERS",
    "KERAS_CELLS",
    "KERAS_WRAPPERS",
    "KERAS_PREFIXES",
]

#: Frameworks whose model code :func:`derive.read.explain_code` reads.
CODE_READERS = ("torch", "keras", "tf1")
#: Of those, the frameworks whose constructor lines the strict parser reads (:func:`is_legacy`): a
#: line of theirs that holds code goes to the code reader. A TF1 line is read as a registered
#: constructor (:mod:`derive.read.code.constructor_line`), TF1 code on several lines by the code reader.
LINE_PARSED = ("torch", "keras")
#: Names that stand for derive's size symbols.
SYMBOLS: Mapping[str, Any] = Letters(("I", "H", "L", "P"))
#: Classes the torch constructor path reads (``derive.torch``).
TORCH_CLASSES = ("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell")
#: Prefixes a torch constructor may carry.
TORCH_PREFIXES = ("", "nn.", "torch.nn.")
#: Every keyword torch's recurrent classes take (``torch/nn/modules/rnn.py``: ``RNNBase.__init__``,
#: ``RNN.__init__``'s ``nonlinearity``, ``RNNCellBase``).
TORCH_KEYWORDS = frozenset(
    {
        "input_size",
        "hidden_size",
        "num_layers",
        "bias",
        "batch_first",
        "dropout",
        "bidirectional",
        "proj_size",
        "nonlinearity",
        "device",
        "dtype",
    }
)
#: Layers and wrappers the Keras constructor path reads (``derive.keras``).
KERAS_LAYERS = ("SimpleRNN", "LSTM", "GRU", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D", "CuDNNLSTM", "CuDNNGRU")
#: Keras cells: only inside ``RNN(...)`` or ``StackedRNNCells([...])``.
KERAS_CELLS = ("SimpleRNNCell", "LSTMCell", "GRUCell")
#: Keras wrappers of those layers and cells.
KERAS_WRAPPERS = ("Bidirectional", "Sequential", "RNN", "StackedRNNCells")
_KERAS_ALL = KERAS_LAYERS + KERAS_CELLS + KERAS_WRAPPERS

_TORCH_HINTS = re.compile(
    r"\b(nn\.|torch\b|Linear\(|ModuleList\(|Conv1d\(|LayerNorm\(|BatchNorm1d\(|RNNCell\(|LSTMCell\(|GRUCell\()"
)
_KERAS_HINTS = re.compile(
    r"\b(keras|layers\.|Dense\(|Input\(|SimpleRNN|Bidirectional|TimeDistributed|Conv[123]D|"
    r"ConvLSTM|Sequential\(\[|Sequential\(\)|Model\(|input_shape|units=|return_sequences|"
    r"Masking|RepeatVector|Embedding\(\w+, \w+\)\s*[,\]])"
)

#: TF1's cells and the functions that apply them (``tf.nn.rnn_cell.``, ``tf.contrib.rnn``,
#: ``MultiRNNCell(``, ``dynamic_rnn(``): read as TF1 code where neither Keras nor torch is named.
_TF1_HINTS = re.compile(
    r"\b(rnn_cell\.|contrib\.rnn\b|contrib import rnn\b|"
    r"(?:BasicLSTMCell|BasicRNNCell|MultiRNNCell|DropoutWrapper|ResidualWrapper|DeviceWrapper)\(|"
    r"(?:dynamic_rnn|static_rnn|bidirectional_dynamic_rnn|static_bidirectional_rnn)\()"
)
_NOT_TF1 = re.compile(r"\b(keras|torch|nn\.Module)\b")


def load_registries() -> None:
    """Import the packages whose modules register constructors (framework mirrors, blocks)."""
    import derive.blocks
    import derive.frameworks  # noqa: F401


def is_legacy(framework: str, name: str) -> bool:
    """Whether ``name`` is one of the torch or Keras recurrent classes the strict constructor parser reads.

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


def _fits(framework: str, name: str, call: ast.Call) -> bool:
    """Whether ``framework``'s class written ``name`` takes the call's arguments (their number and
    keywords; values are not read): torch's recurrent classes need ``input_size`` and ``hidden_size``
    and take only :data:`TORCH_KEYWORDS`; a Keras class its own keywords and a layer's
    (:data:`derive.frameworks.keras.base.KERAS_COMMON`); a registered class its signature."""
    import inspect

    keywords = [k.arg for k in call.keywords]
    if None in keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return True  # **kwargs, *args: the arguments are not known
    if is_legacy(framework, name) and framework == "torch":
        given = len(call.args) + len({"input_size", "hidden_size"} & set(keywords))
        return set(keywords) <= TORCH_KEYWORDS and given >= 2
    if is_legacy(framework, name):
        from ..frameworks import keras as dk
        from ..frameworks.keras.base import KERAS_COMMON, RNN_KWARGS

        make = getattr(dk, name.rsplit(".", 1)[-1])
        own = {p for p, v in inspect.signature(make).parameters.items() if v.kind is not v.VAR_KEYWORD}
        if set(keywords) - own - KERAS_COMMON - RNN_KWARGS - {"activity_regularizer"}:
            return False
        target: object = make
    else:
        found = find(name, framework)
        if not found:
            return False
        target = found[0].make
    try:
        inspect.signature(target).bind(*call.args, **dict.fromkeys(keywords))  # type: ignore[arg-type]
    except TypeError:
        return False
    return True


def _chosen(name: str, found: list[str], call: ast.Call) -> str:
    """The framework of a class several name alike: torch's where its class takes the arguments,
    else the one framework whose class does (Keras' where several do), else refused."""
    fitting = [fw for fw in found if _fits(fw, name, call)]
    if "torch" in fitting or (len(found) > 1 and not fitting and "torch" in found):
        return "torch"  # torch's refusal of the arguments names what it takes
    if len(fitting) == 1 or (len(found) == 1 and not fitting):
        return (fitting or found)[0]
    if "keras" in fitting and set(fitting) <= {"keras", "torch"}:
        return "keras"
    choices = " or ".join(f"--framework {fw}" for fw in (fitting or found))
    raise SourceError(f"{name} is a class of {', '.join(fitting or found)}: say which with {choices}")


def line_framework(node: ast.expr, asked: str | None) -> tuple[str, str | None]:
    """Whether one pasted line is a constructor (and of which framework) or model code.

    Parameters
    ----------
    node : ast.expr
        The line, parsed (never evaluated).
    asked : str or None
        The framework asked for (``--framework``, ``--torch``, ``--keras``).

    Returns
    -------
    (str, str or None)
        ``("constructor", framework)`` or ``("code", framework asked for or None)``: a list of Keras
        layers is code (:func:`list_framework`).

    Raises
    ------
    SourceError
        Not a call of a name nor a list of layers; a class of another framework than the one asked
        for; a known class under a prefix no framework writes; a class several frameworks other than
        torch and Keras name alike, with none asked for; the refusals of :func:`list_framework`.
    """
    if isinstance(node, ast.List):
        list_framework(node, asked)
        return "code", asked
    if not isinstance(node, ast.Call):
        raise SourceError("expected one constructor call, e.g. nn.LSTM(32, 128, 2, bidirectional=True)")
    name = dotted(node.func)
    if name is None:
        raise SourceError("only a call of a class name is allowed (e.g. LSTM(32, 128) or nn.GRU(10, 20))")
    found = candidates(name)
    if asked is not None and asked not in found and find(name, asked):  # a prefix read only where asked for
        found = [*found, asked]
    if asked is not None:
        if asked not in found:
            if found and asked in LINE_PARSED:
                raise SourceError(
                    f"{name} is not a {asked} class derive reads as a constructor: it is "
                    f"{' and '.join(found)}'s (drop --{asked}, or say --framework {found[0]})"
                )
            if asked in LINE_PARSED:
                _known_elsewhere(name, node)
                return "code", asked
            raise SourceError(f"{name} is not a class of {asked} that derive knows ({_known(asked)})")
        chosen = asked
    elif not found:
        _known_elsewhere(name, node)
        return "code", None
    else:
        chosen = _chosen(name, found, node)
    if chosen in LINE_PARSED and _is_code(node, chosen):
        return "code", asked
    return "constructor", chosen


def _known_elsewhere(name: str, node: ast.Call) -> None:
    """Refuse one call with literal arguments of a known class under a prefix derive does not know
    (``os.GRU(3, 4)``, ``torch.nn.modules.rnn.LSTM(1, 2)``): not read as code, where any prefix passes."""
    prefix, _, base = name.rpartition(".")
    if not prefix or _is_code(node, ""):
        return
    spelled = [f"{TORCH_PREFIXES[1]}{base} (torch)"] if base in TORCH_CLASSES else []
    spelled += [f"{KERAS_PREFIXES[1]}{base} (keras)"] if base in _KERAS_ALL else []
    spelled += [
        f"{next((p for p in c.prefixes if p), '')}{base} ({fw})" for (fw, n), c in CONSTRUCTORS.items() if n == base
    ]
    if spelled:
        raise SourceError(f"unknown prefix {prefix + '.'!r} of {base}: write {', '.join(spelled)}")


def list_framework(node: ast.List, asked: str | None) -> str:
    """The framework of a pasted list of layers: Keras', whose ``Sequential`` takes the list
    (``keras.Sequential([Bidirectional(LSTM(64, return_sequences=True)), LSTM(32)])``), or refused.

    Each item is decided as a line is (:func:`line_framework`): the list is Keras' when one of them
    is a Keras constructor (``LSTM(32)``: a single size, ``return_sequences=``, ``Bidirectional``)
    and none another framework's; a list of no recurrent layer either rule knows (``[Dense(8),
    Dense(1)]``) by the names it uses, as code is (:func:`detect`).

    Parameters
    ----------
    node : ast.List
        The list, parsed (never evaluated).
    asked : str or None
        The framework asked for.

    Returns
    -------
    str
        ``"keras"``.

    Raises
    ------
    SourceError
        Another framework asked for; an empty list; an item that is not a call; an item that is
        another framework's constructor (named, with its position); a list whose names say no
        framework (naming ``--keras``); the refusals of :func:`line_framework` for an item.

    Examples
    --------
    >>> list_framework(ast.parse("[layers.LSTM(64, return_sequences=True), layers.GRU(8)]", mode="eval").body, None)
    'keras'
    """
    if asked not in (None, "keras"):
        raise SourceError(
            f"a pasted list of layers is read as the keras.Sequential of them (Keras' layers); for {asked}, paste "
            "the one call that holds the layers (its container), with --framework " + asked
        )
    if not node.elts:
        raise SourceError(
            "the pasted list is empty: expected Keras layers, e.g. [LSTM(64, return_sequences=True), LSTM(32)]"
        )
    keras = asked == "keras"
    for k, item in enumerate(node.elts):
        if not isinstance(item, ast.Call):
            raise SourceError(
                f"item {k} of the pasted list is not a layer's constructor: expected Keras layers, "
                "e.g. [LSTM(64, return_sequences=True), LSTM(32)]"
            )
        kind, framework = line_framework(item, asked)
        if kind == "constructor" and framework != "keras":
            written = dotted(item.func)
            raise SourceError(
                f"a pasted list of layers is read as the keras.Sequential of them, but item {k}, {written}(...), "
                f"is a {framework} constructor: paste the one call that holds the layers (its container), "
                f"or write Keras' layers"
            )
        keras = keras or kind == "constructor"
    names = ast.unparse(node)
    if not keras and not (_KERAS_HINTS.search(names) and not _TORCH_HINTS.search(names)):
        raise SourceError(
            "a pasted list of layers is read as the keras.Sequential of them, but its names are no Keras layers "
            "derive knows: say it is Keras code with --keras (framework='keras' in derive.explain)"
        )
    return "keras"


def _known(framework: str) -> str:
    names = sorted({f"{(c.prefixes + ('',))[0]}{c.name}" for (fw, _), c in CONSTRUCTORS.items() if fw == framework})
    return "its classes: " + ", ".join(names) if names else "it has no registered classes"


def detect(text: str) -> str:
    """``"torch"``, ``"keras"`` or ``"tf1"``: the framework of model code, from the names it uses.

    One line that is a constructor is decided by :func:`line_framework` (``GRU(16, input_dim=4)``
    is Keras'), a list of layers by :func:`list_framework`; other code by the names it uses: TF1's
    cells and functions (``rnn_cell.``, ``MultiRNNCell(``, ``dynamic_rnn(``) where neither Keras nor
    torch is named, else ``nn.``, ``keras``, ``Dense(`` ...

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Raises
    ------
    SourceError
        A constructor of a framework whose code derive does not read (named, with the command
        line that reads it); names of both PyTorch and Keras (pass ``framework=`` / ``--keras``
        / ``--torch``); the refusals of :func:`list_framework`.

    Examples
    --------
    >>> detect("nn.LSTM(32, 128)"), detect("Sequential([LSTM(64), Dense(1)])")
    ('torch', 'keras')
    """
    listed = _expression(text)
    if isinstance(listed, ast.List):  # a list of layers, on one line or over several
        return list_framework(listed, None)
    node = one_call(text)
    if node is not None:
        try:
            kind, framework = line_framework(node, None)
        except SourceError:
            kind, framework = "code", None  # the code reader gives its own refusal
        if framework in LINE_PARSED:
            return framework
        if kind == "constructor" and framework is not None:
            raise SourceError(
                f"{dotted(node.func)} is a {framework} constructor: derive reads it one constructor at a time, "
                f"on the command line: derive {text.strip()!r} --framework {framework} (with --input-dim N where "
                "the layer takes its input width when first applied)"
            )
    if _TF1_HINTS.search(text) and not _NOT_TF1.search(text):
        return "tf1"
    torch_ = bool(_TORCH_HINTS.search(text))
    keras_ = bool(_KERAS_HINTS.search(text))
    if torch_ and not keras_:
        return "torch"
    if keras_ and not torch_:
        return "keras"
    if torch_ and keras_:
        if re.search(r"\bnn\.Module\b|\bnn\.", text) and not re.search(r"\bkeras\b", text):
            return "torch"
        if re.search(r"\bkeras\b", text) and not re.search(r"\bnn\.", text):
            return "keras"
        raise SourceError("the code uses names of both PyTorch and Keras; say which (--torch or --keras)")
    return "torch"


def one_call(text: str) -> ast.Call | None:
    """``text`` as one call and nothing else, on one line or over several (a constructor pasted as its
    asker wrapped it, one argument a line), parsed, never evaluated; None for anything else.

    Parameters
    ----------
    text : str

    Returns
    -------
    ast.Call or None

    Examples
    --------
    >>> one_call("Mamba(\\n    d_model=16,\\n    d_state=16,\\n)") is not None, one_call("x = 1\\nnn.LSTM(x, 2)")
    (True, None)
    """
    node = _expression(text)
    return node if isinstance(node, ast.Call) else None


def _expression(text: str) -> ast.expr | None:
    try:
        return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return None


def assigned_call(text: str) -> str | None:
    """The call of a line that assigns one (``lstm = nn.LSTM(10, 20)``, ``self.rnn = nn.GRU(8, 16)``, as a
    line is copied out of a model's code), as its asker wrote it; None for anything else.

    The target names nothing derive counts: the command line reads the line as the call alone
    (:func:`derive.explain` reads it as model code, which binds the layer to the same count).

    Parameters
    ----------
    text : str

    Returns
    -------
    str or None
        The source of the assigned call (parsed, never evaluated).

    Examples
    --------
    >>> assigned_call("self.lstm = nn.LSTM(10, 20, batch_first=True)  # encoder")
    'nn.LSTM(10, 20, batch_first=True)'
    >>> assigned_call("x = 1"), assigned_call("nn.LSTM(10, 20)"), assigned_call("a = b = nn.GRU(3, 4)")
    (None, None, None)
    """
    stripped = text.strip()
    try:
        body = ast.parse(stripped).body
    except (SyntaxError, ValueError):
        return None
    if len(body) != 1:
        return None
    node = body[0]
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        target, value = node.target, node.value
    else:
        return None
    if not isinstance(target, (ast.Name, ast.Attribute)) or not isinstance(value, ast.Call):
        return None
    return ast.get_source_segment(stripped, value)
