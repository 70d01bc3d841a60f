"""The way in through live objects: a ``torch.nn.Module``, a Keras model or layer, a transformers model.

:mod:`.objects` tells the framework that made the object; :mod:`.pytorch` and :mod:`.keras` read
every parameter once (buffers marked); :mod:`.blocks` derives block models and pretrained models
from their config rather than only counting them.
"""
