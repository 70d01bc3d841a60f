"""Framework error messages about recurrent layers, explained: which constructor argument differs, and both values.

Recognised: PyTorch ``load_state_dict``'s "size mismatch for <name>: copying a param with shape
torch.Size([...]) from checkpoint, the shape in current model is torch.Size([...])" and
"Missing key(s)" / "Unexpected key(s) in state_dict" (``torch/nn/modules/module.py``,
``Module.load_state_dict``), read together; Keras "expected ndim=3, found ndim=2"; PyTorch
"input.size(-1) must be equal to input_size". For a recurrent module it names the argument that
differs — ``bias``, ``bidirectional``, ``proj_size``, ``num_layers``, ``input_size``,
``hidden_size`` or the cell type — with the checkpoint's value and the model's. Keys that differ
only by a wrapper's prefix (``module.`` from ``DataParallel``/``DistributedDataParallel``,
``_orig_mod.`` from ``torch.compile``, ``model.``) are said to be that. Anything else is said to
be unrecognised.

>>> print(explain_error("size mismatch for lstm.weight_ih_l0: copying a param with shape "
...       "torch.Size([512, 300]) from checkpoint, the shape in current model is torch.Size([512, 100])."))
lstm: checkpoint has input_size=300, your model 100 — often the embedding size (the layer's input width)
"""

from __future__ import annotations

import re

from ..files.infer import UNKNOWN, infer_torch
from ..limits import MAX_MESSAGE
from ..source import clean

__all__ = ["explain_error", "MAX_MESSAGE", "PREFIXES"]

#: Prefixes a wrapper adds to every key, and the wrapper.
PREFIXES = {
    "module.": "nn.DataParallel / DistributedDataParallel",
    "_orig_mod.": "torch.compile",
    "model.": "a wrapper module (a Lightning module's self.model, ...)",
}
_MISMATCH = re.compile(
    r"size mismatch for (?P<name>[\w.]+): copying a param with shape torch\.Size\(\[(?P<ckpt>[\d, ]*)"
    r"\]\) from checkpoint, the shape in current model is torch\.Size\(\[(?P<model>[\d, ]*)\]\)"
)
_KEYS = re.compile(r"(?P<kind>Missing key\(s\)|Unexpected key\(s\)) in state_dict: (?P<keys>(?:\"[^\"]+\"(?:, )?)+)")
_NAME = re.compile(
    r"^(?P<kind>weight_ih|weight_hh|bias_ih|bias_hh|weight_hr)(?:_l(?P<layer>\d+))?(?P<reverse>_reverse)?$"
)
#: Keras' refusal of an input of the wrong rank (``InputSpec``'s check), in its three wordings: Keras 3
#: and Keras 2.6+ (``Input 0 of layer "lstm" is incompatible with the layer: ... Full shape received:
#: (1, 60)``, ``keras/src/layers/input_spec.py``, ``assert_input_compatibility``), TF 2.0-2.5's tf.keras
#: (the layer's name unquoted; TF 1.x's tf.keras printed the shape as a list, ``[None, 60]``) and Keras
#: 2.0-2.3 (``Input 0 is incompatible with layer lstm_33: expected ndim=3, found ndim=4``,
#: ``keras/engine/base_layer.py``, no shape).
_NDIM = re.compile(
    r"Input \d+ (?:with name '[^']*' )?(?:of layer (?P<layer>\"[^\"]+\"|'[^']+'|\S+) is incompatible with the layer"
    r"|is incompatible with layer (?P<old>[^\s:]+)): expected ndim=(?P<want>\d+), found ndim=(?P<got>\d+)"
    r"(?:\. Full shape received: (?P<shape>\([^)]*\)|\[[^\]]*\]))?"
)
_TORCH_INPUT = re.compile(r"input\.size\(-1\) must be equal to input_size\. Expected (?P<want>\d+), got (?P<got>\d+)")
_HINTS = {
    "input_size": "often the embedding size (the layer's input width)",
    "hidden_size": "the hidden size",
    "bidirectional": "one direction or two",
    "proj_size": "the LSTM projection",
    "num_layers": "the number of stacked layers",
    "mode": "the cell type (nn.RNN, nn.GRU or nn.LSTM)",
    "bias": "whether each layer has bias_ih and bias_hh",
}
_CKPT, _MODEL = "the checkpoint has, your model lacks", "your model has, the checkpoint lacks"


def _dims(text: str) -> tuple[int, ...]:
    return tuple(int(d) for d in text.replace(" ", "").split(",") if d)


def _differs(module: str, key: str, checkpoint: object, model: object) -> str:
    shown = {"mode": "cell type"}.get(key, key)
    if key == "mode":
        return f"{module}: checkpoint has an nn.{checkpoint}, your model an nn.{model} — {_HINTS[key]}"
    return f"{module}: checkpoint has {shown}={checkpoint}, your model {model} — {_HINTS[key]}"


def _prefixes(missing: list[str], unexpected: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Lines for keys that differ only by a wrapper's prefix; the keys left to explain."""
    lines = []
    for prefix, wrapper in PREFIXES.items():
        for extra, other, whose in ((unexpected, missing, "checkpoint"), (missing, unexpected, "model")):
            stripped = {k[len(prefix) :]: k for k in extra if k.startswith(prefix)}
            matched = set(stripped) & set(other)
            if not matched:
                continue
            if whose == "checkpoint":
                lines.append(
                    f"the checkpoint's keys start with {prefix!r} (saved from {wrapper}), your model's do not: "
                    f"strip it, {{k.removeprefix({prefix!r}): v for k, v in state_dict.items()}}"
                )
            else:
                lines.append(
                    f"your model's keys start with {prefix!r} ({wrapper}), the checkpoint's do not: load into the "
                    f"wrapped module (model.{prefix.rstrip('.')}.load_state_dict(...))"
                )
            extra[:] = [k for k in extra if not (k.startswith(prefix) and k[len(prefix) :] in matched)]
            other[:] = [k for k in other if k not in matched]
    return lines, missing, unexpected


def _split(name: str) -> tuple[str, tuple[str, int, bool] | None]:
    """``"enc.rnn.weight_ih_l1_reverse"`` -> ``("enc.rnn", ("weight_ih", 1, True))``; None if not recurrent."""
    module, _, last = name.rpartition(".")
    match = _NAME.match(last)
    if match is None:
        return name, None
    return module, (match["kind"], int(match["layer"] or 0), bool(match["reverse"]))


def _keys(module: str, extra: list[tuple[str, int, bool]], side: str, weight_hh: dict) -> tuple[dict[str, str], set]:
    """The arguments that the recurrent keys one side has and the other lacks show (argument -> line);
    the keys so explained."""
    found: dict[str, str] = {}
    name = module or "(top level)"
    ckpt = side == _CKPT

    def differs(key: str, value: object, other: object) -> None:
        found[key] = _differs(name, key, *((value, other) if ckpt else (other, value)))

    if all(kind.startswith("bias") for kind, _, _ in extra):
        differs("bias", True, False)
        return found, set(extra)
    if all(kind == "weight_hr" for kind, _, _ in extra):
        shapes = weight_hh.get(("weight_hh", extra[0][1], extra[0][2]))
        differs("proj_size", shapes[0 if ckpt else 1][1] if shapes else "P > 0", 0)
        return found, set(extra)
    forward = {(kind, layer) for kind, layer, reverse in extra if not reverse}
    reverse = {(k, lay, r) for k, lay, r in extra if r and (k, lay) not in forward}
    if reverse:
        differs("bidirectional", True, False)
    layers = sorted({lay for k, lay, r in extra if (k, lay, r) not in reverse})
    if layers and layers == list(range(layers[0], layers[-1] + 1)):
        differs("num_layers", layers[-1] + 1, layers[0])
        return found, set(extra)
    return found, reverse


def _mismatches(found: dict[str, tuple[tuple[int, ...], tuple[int, ...]]], done: set[tuple[str, str]]) -> list[str]:
    lines = []
    ckpt = {name: shapes[0] for name, shapes in found.items()}
    model = {name: shapes[1] for name, shapes in found.items()}
    rows_c, other = infer_torch(ckpt, complete=False)
    rows_m, _ = infer_torch(model, complete=False)
    for rc, rm in zip(rows_c, rows_m, strict=True):
        module = rc.prefix.rstrip(".")
        for key in ("mode", "input_size", "hidden_size", "proj_size", "bidirectional"):
            a, b = rc.config.get(key), rm.config.get(key)
            if a != b and UNKNOWN not in (a, b) and (module, key) not in done:
                lines.append(_differs(module or "(top level)", key, a, b))
                done.add((module, key))
                if key == "mode":
                    break
    for name in other:
        lines.append(f"{name}: checkpoint {ckpt[name]}, your model {model[name]} (not a recurrent tensor)")
    return lines


def _state_dict(text: str) -> list[str]:
    missing: list[str] = []
    unexpected: list[str] = []
    for match in _KEYS.finditer(text):
        keys = re.findall(r"\"([^\"]+)\"", match["keys"])
        (missing if match["kind"].startswith("Missing") else unexpected).extend(keys)
    found = {m["name"]: (_dims(m["ckpt"]), _dims(m["model"])) for m in _MISMATCH.finditer(text)}
    lines, missing, unexpected = _prefixes(missing, unexpected)
    # --- block models' tensors: the config keys that differ (derive.read.errors.blocks) ---
    from .blocks import explain_blocks

    owner = re.search(r"Error\(s\) in loading state_dict for (\w+)", text)
    from .architecture import checkpoint_architecture, one_side_block

    architecture = checkpoint_architecture(missing, unexpected, owner[1] if owner else "")
    lines += [architecture] if architecture else one_side_block(missing, unexpected)
    not_recurrent = {n: s for n, s in found.items() if _split(n)[1] is None}
    blocks, explained = explain_blocks(not_recurrent, missing, unexpected, owner[1] if owner else "")
    lines += blocks
    found = {n: s for n, s in found.items() if n not in explained}
    missing, unexpected = [k for k in missing if k not in explained], [k for k in unexpected if k not in explained]
    # ---
    weight_hh: dict[str, dict] = {}
    for name, shapes in found.items():
        module, key = _split(name)
        if key is not None and key[0] == "weight_hh":
            weight_hh.setdefault(module, {})[key] = shapes
    done: set[tuple[str, str]] = set()
    for keys, side in ((unexpected, _CKPT), (missing, _MODEL)):
        by_module: dict[str, list[tuple[str, int, bool]]] = {}
        plain = []
        for name in keys:
            module, key = _split(name)
            if key is None:
                plain.append(name)
            else:
                by_module.setdefault(module, []).append(key)
        for module, extra in by_module.items():
            shown, explained = _keys(module, extra, side, weight_hh.get(module, {}))
            lines += shown.values()
            done |= {(module, key) for key in shown}
            plain += [
                f"{module + '.' if module else ''}{k}_l{lay}{'_reverse' if r else ''}"
                for k, lay, r in extra
                if (k, lay, r) not in explained
            ]
        if plain:
            more = f" and {len(plain) - 6:,} more" if len(plain) > 6 else ""  # never a silent cut
            lines.append(f"keys that {side}: " + ", ".join(clean(k, 60) for k in plain[:6]) + more)
    if found:
        proj = {m for m, key in done if key == "proj_size"}
        lines += _mismatches({n: s for n, s in found.items() if _split(n)[0] not in proj or _split(n)[1] is None}, done)
    return lines


def _ndim(m: re.Match[str]) -> str:
    """One line for Keras' rank refusal: the ranks, the shape where the message gives it, what to change."""
    layer = (m["layer"] or m["old"]).strip("\"'")
    want, got = int(m["want"]), int(m["got"])
    axes = " (batch, time, features)" if want == 3 else ""  # a recurrent layer's input
    shape = f" {clean(m['shape'], 60)}" if m["shape"] else ""
    many = abs(got - want)
    axis = "one axis" if many == 1 else f"{many} axes"
    if got < want and want == 3:
        fix = "give each sample a time axis, e.g. Input(shape=(T, F)) or x.reshape(N, T, F); for one step per sample use T=1"
    elif got < want:
        fix = f"the input lacks {axis}: reshape it to {want} axes"
    else:
        fix = (
            f"the input has {axis} too many: reshape it to {want} axes (or put a Reshape, Flatten or TimeDistributed "
            "layer before this one); an input_shape= leaves out the batch axis"
        )
    return f"layer {clean(layer, 60)} expects ndim={want}{axes} but got ndim={got}{shape}: {fix}"


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
        ``text`` longer than :data:`MAX_MESSAGE` characters.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if len(text) > MAX_MESSAGE:
        raise ValueError(f"text longer than {MAX_MESSAGE:,} characters")
    lines = _state_dict(text)
    for m in _NDIM.finditer(text):
        lines.append(_ndim(m))
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
