"""One constructor line (``nn.LSTM(32, 128, 2, bidirectional=True)``, ``hk.LSTM(128)``), read once for
the command line and :func:`derive.explain` alike: :func:`~derive.read.line.describe.describe` gives
everything either shows — the count, every tensor, the closed form and its letters' values, the notes —
and :func:`~derive.read.line.describe.explain_line` the :class:`~derive.read.report.Report` of it.

The line is parsed with :mod:`ast` (never evaluated): :mod:`.parse` reads torch's and Keras' recurrent
classes (:mod:`derive.torch`, :mod:`derive.keras`), :mod:`.registered` every other registered class
(:mod:`derive.read.code.constructor_line`), :mod:`.formula` the closed form in the user's own letters.
"""
