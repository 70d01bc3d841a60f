"""``derive`` on the command line: paste a constructor, get the count, the tensors and the formula.

::

    derive "nn.LSTM(32, 128, 2, bidirectional=True)"
    derive "torch.nn.GRU(10, 20)" --json
    derive --keras "Bidirectional(LSTM(128))" --input-dim 28
    derive "nn.LSTM(I, H, L)" --latex
    python -m derive "nn.RNN(25, 50, 4, bidirectional=True)" --cost --seq-len 100 --batch 32

The constructor is read with :mod:`ast` and never evaluated: the only thing accepted is one call
of a known class (``derive.torch``'s, optionally prefixed ``nn.`` or ``torch.nn.``; with
``--keras``, ``derive.keras``' layers, optionally prefixed ``layers.``, ``keras.layers.`` or
``tf.keras.layers.``) whose arguments are literals — int, float, bool, str, None, and tuples or
lists of them — or the size symbols ``I``, ``H``, ``L``, ``P``. Calls nest only where Keras
wraps a layer (``Bidirectional(layer, backward_layer=...)``, ``Sequential([...])``). Anything
else — another name, attribute access, ``__import__``, a lambda, a comprehension, ``*args``,
an f-string, an operator, an int beyond 10**15, a string beyond 64 characters — is refused
with one line on stderr and exit status 2 (as for a usage error); so is an argument the
framework itself would refuse (the adapters' ``ValueError``/``TypeError``).

User text is printed literally (no rich markup, control characters as escapes, long values
elided). A stdout that is closed, full or failing ends with one line on stderr and exit status
1; a reader that has gone (``| head -1``) ends quietly with 141, as coreutils' tools do.
"""

from .app import describe, main
from .parse import InputError, parse

__all__ = ["main", "parse", "describe", "InputError"]
