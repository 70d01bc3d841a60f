"""Keras model code read by following it: ``Sequential``, functional and subclassed models.

:mod:`.reader` is the way in (:func:`~derive.read.code.keras.reader.explain_keras`); the rest are
Keras' rules for the code reader of :mod:`derive.read.code.python`: :mod:`.semantics` (what Keras'
names mean), :mod:`.objects` (layers, models, symbolic tensors, weights), :mod:`.construct` (a
layer from its constructor line), :mod:`.inner` (a layer inside a wrapper), :mod:`.apply` (a layer
called on tensors, built), :mod:`.layer_api` (``build``, ``add_weight``), :mod:`.models`
(``Sequential``, ``Model``, ``Lambda``), :mod:`.ops` and :mod:`.arrays` (``keras.ops`` shapes),
:mod:`.graph`, :mod:`.merge` and :mod:`.tree`.
"""
