"""``derive`` on the command line: a constructor, model code, a file or an error message in, the
exact count, the tensors and the closed form out.

::

    derive "nn.LSTM(32, 128, 2, bidirectional=True)"              # torch (the default for nn.*)
    derive "Bidirectional(LSTM(128))" --input-dim 28               # Keras 3
    derive "hk.LSTM(128)" --input-dim 32                           # Haiku, MLX, Flax, Paddle, MXNet, ...
    derive "nn.Sequential(nn.Embedding(1000, 64), nn.LSTM(64, 128))"   # a whole model as code
    derive model.pt --json                                         # a checkpoint (weights_only), .onnx ...
    derive --explain-error "size mismatch for lstm.weight_ih_l0: ..."
    python -m derive "nn.RNN(25, 50, 4, bidirectional=True)" --cost --seq-len 100 --batch 32

One parser (:mod:`derive.cli.options`) and one decision about the input
(:mod:`derive.cli.inputs`: error message, stdin, file, constructor or code, in that order,
never by trying one reader and then another). A constructor is read with :mod:`ast` and never
evaluated: one call of a class registered for a framework (:mod:`derive.engine.constructors`) or
of the torch and Keras recurrent classes (:mod:`derive.read.line.parse`), whose arguments are literals —
int, float, bool, str, None, tuples and lists of them — or the size symbols ``I``, ``H``, ``L``,
``P``; a torch or Keras call holding anything else is read as model code (:func:`derive.read.explain`).
Input derive refuses — ``__import__``, a lambda, an operator, an int beyond 10**15, a string
beyond 64 characters, an argument the framework itself refuses — ends with one line on stderr and
exit status 2; an answer whose total is partial (a part not counted) with exit status 3.

User text is printed literally (no rich markup, control characters as escapes, long values
elided). A stdout that is closed, full or failing ends with one line on stderr and exit status
1; a reader that has gone (``| head -1``) ends quietly with 141, as coreutils' tools do.
"""

from ..read.line.parse import InputError, parse
from .app import EXIT_BAD_INPUT, EXIT_OK, EXIT_PARTIAL, describe, main

__all__ = ["main", "parse", "describe", "InputError", "EXIT_OK", "EXIT_BAD_INPUT", "EXIT_PARTIAL"]
