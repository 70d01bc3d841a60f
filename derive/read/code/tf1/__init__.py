"""TF1 model code read by following it: ``tf.nn.rnn_cell`` cells made, stacked, wrapped and applied.

:mod:`.reader` is the way in (:func:`~derive.read.code.tf1.reader.explain_tf1`); :mod:`.semantics`
says what TF1's names mean to the code reader of :mod:`derive.read.code.python`. The cells' shapes,
names and rules are :mod:`derive.frameworks.tf1`'s (the cells) and
:mod:`derive.frameworks.tf1_compose`'s (stacks, wrappers, the functions that apply them), where
TF1's conventions live.
"""
