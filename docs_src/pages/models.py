"""The "Whole models" pages: the models people ask about most, and checkpoints and error messages.

Every number on these pages is computed by :func:`derive.explain` (and :func:`derive.explain_error`)
when the site is built; ``tests/models/test_site_models.py`` builds each model in the real
framework (PyTorch on the ``meta`` device, Keras 3) and compares every per-layer count and total,
and produces every error message quoted here by running real torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy

import derive
from derive.read.files.state_dict import explain_state_dict
from derive.read.report import Report, show

from ..site import Example, Page, number

__all__ = [
    "WholeModel",
    "WHOLE_MODELS",
    "STATE_DICT",
    "ERRORS",
    "CHECKPOINT_EXAMPLES",
    "ErrorCase",
    "state_dict_report",
    "keras_code",
    "torch_code",
    "whole_models_context",
    "checkpoints_context",
]


@dataclass(frozen=True)
class WholeModel:
    """One model shape, written once in Keras and once in PyTorch with size symbols.

    Attributes
    ----------
    key : str
        Anchor on the page.
    title : str
    intro : str
        One paragraph of Markdown.
    sizes : tuple of (str, int, str)
        Symbol, the value the page uses, what it means.
    keras : str
        Keras 3 code using the symbols (``keras`` and ``layers`` imported); binds ``model``.
    torch : str
        A ``torch.nn.Module`` class whose ``__init__`` takes the symbols, in ``torch_args`` order.
    torch_class : str
        Its name.
    torch_args : tuple of str
        The symbols passed to it.
    """

    key: str
    title: str
    intro: str
    sizes: tuple[tuple[str, int, str], ...]
    keras: str
    torch: str
    torch_class: str
    torch_args: tuple[str, ...]


WHOLE_MODELS = (
    WholeModel(
        "classifier",
        "Embedding → LSTM → Dense classifier",
        "Token ids in, one class per sequence out: the last hidden state of the LSTM feeds the classifier.",
        (
            ("V", 10_000, "vocabulary"),
            ("T", 80, "tokens per sequence"),
            ("E", 128, "embedding width"),
            ("H", 64, "LSTM units"),
            ("C", 5, "classes"),
        ),
        """model = keras.Sequential([
    keras.Input(shape=(T,)),
    layers.Embedding(V, E),
    layers.LSTM(H),
    layers.Dense(C, activation="softmax"),
])""",
        """class Classifier(nn.Module):
    def __init__(self, V, E, H, C):
        super().__init__()
        self.embedding = nn.Embedding(V, E)
        self.lstm = nn.LSTM(E, H, batch_first=True)
        self.fc = nn.Linear(H, C)

    def forward(self, tokens):
        _, (h, _) = self.lstm(self.embedding(tokens))
        return self.fc(h[-1])""",
        "Classifier",
        ("V", "E", "H", "C"),
    ),
    WholeModel(
        "tagger",
        "Stacked bidirectional tagger",
        "One tag per token: two bidirectional LSTM layers, then a softmax over the tags at every step. "
        "In Keras each `Bidirectional` is a layer of its own; in PyTorch one `nn.LSTM` with "
        "`num_layers=2, bidirectional=True` holds both, and its second layer reads `2*H` features.",
        (
            ("V", 20_000, "vocabulary"),
            ("T", 60, "tokens per sentence"),
            ("E", 100, "embedding width"),
            ("H", 128, "LSTM units per direction"),
            ("K", 17, "tags"),
        ),
        """model = keras.Sequential([
    keras.Input(shape=(T,)),
    layers.Embedding(V, E, mask_zero=True),
    layers.Bidirectional(layers.LSTM(H, return_sequences=True)),
    layers.Bidirectional(layers.LSTM(H, return_sequences=True)),
    layers.TimeDistributed(layers.Dense(K, activation="softmax")),
])""",
        """class Tagger(nn.Module):
    def __init__(self, V, E, H, K):
        super().__init__()
        self.embedding = nn.Embedding(V, E, padding_idx=0)
        self.lstm = nn.LSTM(E, H, num_layers=2, bidirectional=True, batch_first=True)
        self.tags = nn.Linear(2 * H, K)

    def forward(self, tokens):
        out, _ = self.lstm(self.embedding(tokens))
        return self.tags(out)""",
        "Tagger",
        ("V", "E", "H", "K"),
    ),
    WholeModel(
        "seq2seq",
        "Encoder–decoder (sequence to sequence)",
        "The encoder's final states start the decoder (teacher forcing). The Keras model is "
        "functional, with two inputs; `initial_state` adds no weights.",
        (("F", 71, "source characters (one-hot)"), ("G", 93, "target characters (one-hot)"), ("H", 256, "LSTM units")),
        """encoder_inputs = keras.Input(shape=(None, F))
_, state_h, state_c = layers.LSTM(H, return_state=True)(encoder_inputs)
decoder_inputs = keras.Input(shape=(None, G))
decoder_outputs, _, _ = layers.LSTM(H, return_sequences=True, return_state=True)(
    decoder_inputs, initial_state=[state_h, state_c]
)
outputs = layers.Dense(G, activation="softmax")(decoder_outputs)
model = keras.Model([encoder_inputs, decoder_inputs], outputs)""",
        """class Seq2Seq(nn.Module):
    def __init__(self, F, G, H):
        super().__init__()
        self.encoder = nn.LSTM(F, H, batch_first=True)
        self.decoder = nn.LSTM(G, H, batch_first=True)
        self.out = nn.Linear(H, G)

    def forward(self, source, target):
        _, state = self.encoder(source)
        out, _ = self.decoder(target, state)
        return self.out(out)""",
        "Seq2Seq",
        ("F", "G", "H"),
    ),
    WholeModel(
        "cnn-lstm",
        "CNN → LSTM",
        "A convolution over time shortens and widens the sequence before the LSTM reads it. The "
        "output shapes show the time axis shrinking: `T - 4` after a width-5 convolution without "
        "padding, then halved by the pooling.",
        (("T", 128, "time steps"), ("F", 9, "features per step"), ("M", 64, "filters"), ("H", 100, "LSTM units")),
        """model = keras.Sequential([
    keras.Input(shape=(T, F)),
    layers.Conv1D(M, 5, activation="relu"),
    layers.MaxPooling1D(2),
    layers.LSTM(H),
    layers.Dense(1),
])""",
        """class ConvLSTM(nn.Module):
    def __init__(self, F, M, H):
        super().__init__()
        self.conv = nn.Conv1d(F, M, 5)
        self.pool = nn.MaxPool1d(2)
        self.lstm = nn.LSTM(M, H, batch_first=True)
        self.fc = nn.Linear(H, 1)

    def forward(self, x):  # x: (batch, F, T)
        x = self.pool(torch.relu(self.conv(x)))
        _, (h, _) = self.lstm(x.transpose(1, 2))
        return self.fc(h[-1])""",
        "ConvLSTM",
        ("F", "M", "H"),
    ),
    WholeModel(
        "autoencoder",
        "LSTM autoencoder with RepeatVector",
        "The encoder's last state is repeated `T` times and decoded back to `F` features per step. "
        "`RepeatVector` has no weights; the decoder LSTM reads `H` features.",
        (("T", 30, "time steps"), ("F", 6, "features per step"), ("H", 64, "LSTM units")),
        """model = keras.Sequential([
    keras.Input(shape=(T, F)),
    layers.LSTM(H),
    layers.RepeatVector(T),
    layers.LSTM(H, return_sequences=True),
    layers.TimeDistributed(layers.Dense(F)),
])""",
        """class Autoencoder(nn.Module):
    def __init__(self, F, H):
        super().__init__()
        self.encoder = nn.LSTM(F, H, batch_first=True)
        self.decoder = nn.LSTM(H, H, batch_first=True)
        self.out = nn.Linear(H, F)

    def forward(self, x):
        _, (h, _) = self.encoder(x)
        repeated = h[-1].unsqueeze(1).repeat(1, x.shape[1], 1)
        out, _ = self.decoder(repeated)
        return self.out(out)""",
        "Autoencoder",
        ("F", "H"),
    ),
    WholeModel(
        "time-distributed",
        "TimeDistributed heads",
        "Dense layers applied at every step. `TimeDistributed(Dense(D))` has the weights of "
        "`Dense(D)` alone — one set shared by all steps; `nn.Linear` on a `(batch, T, H)` tensor "
        "does the same.",
        (
            ("T", 200, "time steps"),
            ("F", 40, "features per step"),
            ("H", 96, "GRU units"),
            ("D", 32, "hidden head width"),
            ("C", 4, "classes per step"),
        ),
        """model = keras.Sequential([
    keras.Input(shape=(T, F)),
    layers.GRU(H, return_sequences=True),
    layers.TimeDistributed(layers.Dense(D, activation="relu")),
    layers.TimeDistributed(layers.Dense(C)),
])""",
        """class FrameTagger(nn.Module):
    def __init__(self, F, H, D, C):
        super().__init__()
        self.gru = nn.GRU(F, H, batch_first=True)
        self.hidden = nn.Linear(H, D)
        self.out = nn.Linear(D, C)

    def forward(self, x):
        out, _ = self.gru(x)
        return self.out(torch.relu(self.hidden(out)))""",
        "FrameTagger",
        ("F", "H", "D", "C"),
    ),
)


def _size_lines(model: WholeModel) -> str:
    return "\n".join(f"{name} = {value:_}  # {meaning}" for name, value, meaning in model.sizes)


def keras_code(model: WholeModel, symbolic: bool = False) -> str:
    """The Keras code as the page shows it: the sizes, then the model (symbolic: the model alone).

    Parameters
    ----------
    model : WholeModel
    symbolic : bool
        Leave the size names unbound (derive keeps them as symbols).

    Returns
    -------
    str
    """
    return model.keras if symbolic else f"{_size_lines(model)}\n\n{model.keras}"


def torch_code(model: WholeModel, symbolic: bool = False) -> str:
    """The PyTorch code as the page shows it: the sizes, the class, ``model = Class(...)``.

    Parameters
    ----------
    model : WholeModel
    symbolic : bool
        The class alone (its ``__init__`` parameters stay symbols).

    Returns
    -------
    str
    """
    if symbolic:
        return model.torch
    used = [s for s in model.sizes if s[0] in model.torch_args]
    sizes = "\n".join(f"{name} = {value:_}  # {meaning}" for name, value, meaning in used)
    return f"{sizes}\n\n\n{model.torch}\n\n\nmodel = {model.torch_class}({', '.join(model.torch_args)})"


def _tex(value: object) -> str:
    return sympy.latex(value) if isinstance(value, sympy.Basic) else str(value)


def _table(numeric: Report, symbolic: Report) -> dict:
    rows = []
    for row, sym in zip(numeric.rows, symbolic.rows, strict=True):
        rows.append(
            {
                "name": row.name,
                "type": row.type,
                "shape": show(sym.output_shape),
                "params": number(row.params),
                "formula": _tex(sym.params),
            }
        )
    return {"rows": rows, "total": number(numeric.total), "formula": _tex(sympy.factor_terms(symbolic.total))}


def whole_models_context() -> dict:
    """Each model's code in both frameworks and its derived tables (numbers and closed forms).

    Returns
    -------
    dict
        ``models``: list of dicts with ``model``, ``keras``/``torch`` (the code shown) and
        ``keras_table``/``torch_table`` (rows, total, closed-form total).
    """
    out = []
    for model in WHOLE_MODELS:
        keras_numeric = derive.explain(keras_code(model), framework="keras")
        keras_symbolic = derive.explain(keras_code(model, symbolic=True), framework="keras")
        torch_numeric = derive.explain(torch_code(model), framework="torch")
        torch_symbolic = derive.explain(torch_code(model, symbolic=True), framework="torch")
        out.append(
            {
                "model": model,
                "keras": keras_code(model),
                "torch": torch_code(model),
                "keras_table": _table(keras_numeric, keras_symbolic),
                "torch_table": _table(torch_numeric, torch_symbolic),
            }
        )
    return {"models": out}


# --- checkpoints and error messages ---------------------------------------------------------------

#: ``{name: shape}`` of ``Tagger(20_000, 100, 128, 17).state_dict()`` (the tagger above); the test
#: suite builds the model in torch and checks every name and shape.
STATE_DICT: dict[str, tuple[int, ...]] = {
    "embedding.weight": (20000, 100),
    **{
        f"lstm.{kind}_l{layer}{suffix}": shape
        for layer, width in ((0, 100), (1, 256))
        for suffix in ("", "_reverse")
        for kind, shape in (
            ("weight_ih", (512, width)),
            ("weight_hh", (512, 128)),
            ("bias_ih", (512,)),
            ("bias_hh", (512,)),
        )
    },
    "tags.weight": (17, 256),
    "tags.bias": (17,),
}


@dataclass(frozen=True)
class ErrorCase:
    """A ``load_state_dict`` error, produced by real torch in the test suite.

    Attributes
    ----------
    title : str
    checkpoint, model : str
        The constructors of the saved model and of the model loading it (``nn.Module`` bodies).
    message : str
        torch's message, verbatim.
    """

    title: str
    checkpoint: str
    model: str
    message: str


#: The messages quoted on the page (the test suite reproduces each with real torch).
ERRORS = (
    ErrorCase(
        "size mismatch: the input width",
        "nn.LSTM(300, 128)",
        "nn.LSTM(100, 128)",
        "Error(s) in loading state_dict for Net:\n"
        "\tsize mismatch for lstm.weight_ih_l0: copying a param with shape torch.Size([512, 300]) from "
        "checkpoint, the shape in current model is torch.Size([512, 100]).",
    ),
    ErrorCase(
        "unexpected keys: a layer more in the checkpoint",
        "nn.LSTM(100, 128, num_layers=2)",
        "nn.LSTM(100, 128)",
        "Error(s) in loading state_dict for Net:\n"
        '\tUnexpected key(s) in state_dict: "lstm.weight_ih_l1", "lstm.weight_hh_l1", "lstm.bias_ih_l1", '
        '"lstm.bias_hh_l1". ',
    ),
    ErrorCase(
        "missing keys: bidirectional in the model, not in the checkpoint",
        "nn.LSTM(100, 128)",
        "nn.LSTM(100, 128, bidirectional=True)",
        "Error(s) in loading state_dict for Net:\n"
        '\tMissing key(s) in state_dict: "lstm.weight_ih_l0_reverse", "lstm.weight_hh_l0_reverse", '
        '"lstm.bias_ih_l0_reverse", "lstm.bias_hh_l0_reverse". ',
    ),
)


#: The constructors these pages name in prose (checked against torch by tests/test_site_numbers.py).
CHECKPOINT_EXAMPLES = (
    Example("LSTM", (100, 128), (("num_layers", 2), ("bidirectional", True))),
    Example("LSTM", (300, 128)),
    Example("LSTM", (100, 128)),
    Example("LSTM", (100, 128), (("num_layers", 2),)),
    Example("LSTM", (100, 128), (("bidirectional", True),)),
)


def state_dict_report() -> Report:
    """What ``derive.explain("tagger.pt")`` reports for :data:`STATE_DICT` saved by torch.

    Returns
    -------
    Report
    """
    return explain_state_dict(STATE_DICT, complete=True)


def checkpoints_context() -> dict:
    """The state dict, derive's reading of it, and each error message with its explanation.

    Returns
    -------
    dict
    """
    report = state_dict_report()
    return {
        "state": [(name, show(shape)) for name, shape in STATE_DICT.items()],
        "report": report,
        "rows": [(r.name, r.type, number(r.params), r.constructor or "") for r in report.rows],
        "total": number(report.total),
        "errors": [
            {"case": case, "explained": derive.explain_error(case.message), "quoted": _quote(case.message)}
            for case in ERRORS
        ],
    }


def _quote(message: str) -> str:
    return re.sub(r"\t", "    ", message.rstrip())


ORDER = 40
PAGES = [
    Page("models/whole-models.md", "Whole models", "models-whole.md.j2", whole_models_context, (), "Whole models"),
    Page(
        "models/checkpoints.md",
        "Checkpoints and error messages",
        "models-checkpoints.md.j2",
        checkpoints_context,
        CHECKPOINT_EXAMPLES,
        "Whole models",
    ),
]
