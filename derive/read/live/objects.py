"""Live model objects: a ``torch.nn.Module`` or a Keras model or layer, by the framework that made it.

Framework modules are looked up in ``sys.modules`` (as einops does): nothing is imported just to
test a type. A torch module is read by :mod:`derive.read.live.pytorch`, a Keras one by
:mod:`derive.read.live.keras`; both count every tensor the object holds, so the total is the
framework's own (``sum(p.numel() for p in model.parameters())``, ``model.count_params()``), and
neither refuses a module it does not know.
"""

from __future__ import annotations

import sys
from typing import Any

from ..report import Report
from ..source import clean
from .blocks import explain_pretrained, unshown_notes

__all__ = ["explain_object"]


def explain_object(obj: Any) -> Report:
    """A live ``torch.nn.Module`` or Keras model/layer.

    Parameters
    ----------
    obj : torch.nn.Module or keras.Model or keras.layers.Layer

    Returns
    -------
    Report
        Total equal to ``sum(p.numel() for p in model.parameters())`` / ``model.count_params()``.

    Raises
    ------
    TypeError
        Anything else.
    """
    # Keras first: under its torch backend a Keras layer is also a torch.nn.Module.
    keras = sys.modules.get("keras")
    if keras is not None and isinstance(obj, keras.layers.Layer):
        from .keras import explain_keras_object

        return explain_keras_object(obj)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.nn.Module):
        # --- a pretrained model derived from its config (derive.read.live.blocks) ---
        pretrained = explain_pretrained(obj)
        if isinstance(pretrained, Report):
            return pretrained
        # ---
        from .pytorch import torch_tree

        tree = torch_tree(obj)
        report = Report.from_module(tree, "torch", f"{clean(type(obj).__name__, 60)} (nn.Module)")
        report.notes += unshown_notes(tree)  # why a block or model was read from its tensors
        return report
    raise TypeError(
        f"explain() takes model code, a path, a state dict or a torch/Keras model; got {type(obj).__name__}"
    )
