"""The way in through configs: a pretrained model's ``config.json``, or a Keras model's config.

:mod:`.pretrained` reads a transformers (or block library's) config into the model its library
builds; :mod:`.keras_config`, :mod:`.keras_nodes`, :mod:`.keras_program` and
:mod:`.keras_functional` read a Keras layer's or model's config (``get_config()``, a ``.keras``
file's ``config.json``).
"""
