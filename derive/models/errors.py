"""Framework error messages about recurrent layers, explained: which constructor argument differs.

Recognised: PyTorch ``load_state_dict`` "size mismatch for <name>: copying a param with shape
torch.Size([...]) from checkpoint, the shape in current model is torch.Size([...])" (one or many),
and "Missing key(s)/Unexpected key(s)"; Keras "expected ndim=3, found ndim=2"; PyTorch
"input.size(-1) must be equal to input_size". Anything else is said to be unrecognised.

>>> print(explain_error("size mismatch for lstm.weight_ih_l0: copying a param with shape "
...       "torch.Size([512, 300]) from checkpoint, the shape in current model is torch.Size([512, 100])."))
lstm: checkpoint has input_size=300, your model 100 — often the embedding size (the layer's input width)
"""

from __future__ import annotations

import re

from .infer import UNKNOWN, infer_torch
from .source import clean

__all__ = ["explain_error", "MAX_ERROR_TEXT"]

#: Longest error text read (characters); longer text is refused with a ValueError.
MAX_ERROR_TEXT = 100_000
_MISMATCH = re.compile(
    r"size mismatch for (?P<name>[\w.]+): copying a param with shape torch\.Size\(\[(?P<ckpt>[\d, ]*)"
    r"\]\) from checkpoint, the shape in current model is torch\.Size\(\[(?P<model>[\d, ]*)\]\)"
)
_KEYS = re.compile(r"(?P<kind>Missing key\(s\)|Unexpected key\(s\)) in state_dict: (?P<keys>(?:\"[^\"]+\"(?:, )?)+)")
_NDIM = re.compile(
    r"Input 0 (?:with name '[^']*' )?of layer [\"'](?P<layer>[^\"']+)[\"'] is incompatible with the layer: expected ndim=(?P<want>\d+),"
    r" found ndim=(?P<got>\d+)\. Full shape received: (?P<shape>\([^)]*\))"
)
_TORCH_INPUT = re.compile(r"input\.size\(-1\) must be equal to input_size\. Expected (?P<want>\d+), got (?P<got>\d+)")
_HINTS = {
    "input_size": "often the embedding size (the layer's input width)",
    "hidden_size": "the hidden size",
    "bidirectional": "one direction or two",
    "proj_size": "the LSTM projection",
    "num_layers": "the number of stacked layers",
    "mode": "the cell type",
}


def _dims(text: str) -> tuple[int, ...]:
    return tuple(int(d) for d in text.replace(" ", "").split(",") if d)


def _mismatch(matches: list[re.Match]) -> list[str]:
    ckpt = {m["name"]: _dims(m["ckpt"]) for m in matches}
    model = {m["name"]: _dims(m["model"]) for m in matches}
    rows_c, other = infer_torch(ckpt, complete=False)
    rows_m, _ = infer_torch(model, complete=False)
    lines = []
    for rc, rm in zip(rows_c, rows_m):
        for key in ("mode", "input_size", "hidden_size", "proj_size", "bidirectional"):
            a, b = rc.config.get(key), rm.config.get(key)  # type: ignore[union-attr]
            if a != b and UNKNOWN not in (a, b):
                lines.append(f"{rc.name}: checkpoint has {key}={a}, your model {b} — {_HINTS[key]}")
    for name in other:
        lines.append(f"{name}: checkpoint {ckpt[name]}, your model {model[name]} (not a recurrent tensor)")
    return lines


def _keys(text: str) -> list[str]:
    lines = []
    for match in _KEYS.finditer(text):
        keys = re.findall(r"\"([^\"]+)\"", match["keys"])
        where = (
            "your model has, the checkpoint lacks"
            if match["kind"].startswith("Missing")
            else "the checkpoint has, your model lacks"
        )
        layers = sorted({int(m) for k in keys for m in re.findall(r"_l(\d+)", k)})
        reverse = any(k.endswith("_reverse") for k in keys)
        hr = any("weight_hr" in k for k in keys)
        if reverse:
            lines.append(f"reverse-direction tensors that {where}: bidirectional differs")
        if hr:
            lines.append(f"weight_hr tensors that {where}: proj_size differs (0 on one side)")
        if layers and not reverse and not hr:
            span = f"layer l{layers[0]}" if len(layers) == 1 else f"layers l{layers[0]}..l{layers[-1]}"
            lines.append(
                f"{span} that {where}: num_layers differs "
                f"({'the checkpoint has more' if 'checkpoint has' in where else 'your model has more'})"
            )
        if not (layers or reverse or hr):
            lines.append(f"keys that {where}: " + ", ".join(clean(k, 60) for k in keys[:6]))
    return lines


def explain_error(text: str) -> str:
    """Explain a PyTorch or Keras error message about a recurrent layer.

    Parameters
    ----------
    text : str
        The message (or the whole traceback).

    Returns
    -------
    str
        One line per finding; for unrecognised text, a plain statement that it is not recognised.

    Raises
    ------
    TypeError
        ``text`` is not a str.
    ValueError
        ``text`` longer than :data:`MAX_ERROR_TEXT` characters.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if len(text) > MAX_ERROR_TEXT:
        raise ValueError(f"text longer than {MAX_ERROR_TEXT:,} characters")
    lines: list[str] = []
    matches = list(_MISMATCH.finditer(text))
    if matches:
        lines += _mismatch(matches)
    lines += _keys(text)
    for m in _NDIM.finditer(text):
        lines.append(
            f"layer {clean(m['layer'], 60)} expects ndim={m['want']} (batch, time, features) but got "
            f"ndim={m['got']} {clean(m['shape'], 60)}: give each sample a time axis, e.g. "
            "Input(shape=(T, F)) or x.reshape(N, T, F); for one step per sample use T=1"
        )
    for m in _TORCH_INPUT.finditer(text):
        lines.append(
            f"the RNN was built with input_size={m['want']} but the input's last dimension is {m['got']}: "
            f"construct it with input_size={m['got']}, or fix the input's feature axis"
        )
    if not lines:
        return (
            "not recognised: derive explains torch load_state_dict size mismatches and missing/unexpected keys, "
            "Keras 'expected ndim=3, found ndim=2' and torch 'input.size(-1) must be equal to input_size'"
        )
    return "\n".join(clean(line, 400) for line in lines)
