"""The way in through code: a pasted constructor line, or a model's code pasted or in a ``.py`` file.

Read with :mod:`ast`, never run. :mod:`.constructor_line` reads one constructor line of a registered
framework (``hk.LSTM(128)``, ``RecurrentGemmaConfig()``); a whole model's code is followed by the
code reader: :mod:`.python` (Python's construction subset: values, scopes, calls, statements),
with the framework's rules in :mod:`.pytorch` (``nn.Module`` code), :mod:`.keras` (Keras and
tf.keras code) and :mod:`.tf1` (``tf.nn.rnn_cell`` cells applied by ``tf.nn.dynamic_rnn``). Which framework pasted text is written for is decided in one place,
:mod:`derive.read.pasted`.
"""
