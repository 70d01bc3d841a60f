"""The limits every reader keeps, one value each: how much text, code, config or error message derive reads
before it refuses (a clear error naming the limit, never a partial reading).

The command line (:mod:`derive.cli.inputs`, stdin included) and :func:`derive.explain` read within the same
values; the readers import them from here.
"""

from __future__ import annotations

__all__ = ["MAX_LINE", "MAX_TEXT", "MAX_MESSAGE", "MAX_CODE_BYTES", "MAX_CONFIG_BYTES"]

#: Most characters of one constructor line (``nn.LSTM(32, 128, 2)``); a longer line is read as code.
MAX_LINE = 2_000
#: Most characters of model code (pasted, on stdin, or one module of a package read from source).
MAX_TEXT = 200_000
#: Most characters of an error message (pasted, on stdin, or given to :func:`derive.explain_error`).
MAX_MESSAGE = 100_000
#: Largest model-code file (bytes).
MAX_CODE_BYTES = 1_000_000
#: Largest config file: a ``config.json``, a Keras model's JSON, the config inside a ``.keras`` zip (bytes).
MAX_CONFIG_BYTES = 20_000_000
