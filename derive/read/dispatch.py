"""What an input is: the one decision, for the command line and :func:`derive.explain` alike.

Every way in passes here first and is told, never by trying one reader and then another, which
reader takes it (:class:`Input`): an error message, model code, a file (by :data:`SUFFIXES`), a
config (a ``config.json``'s text, dict or live object), a state dict, a live model, or a
**constructor** — one call of a class registered for a framework whose arguments are literals
(:func:`derive.read.line.parse.classify`), within the limits every reader keeps
(:mod:`derive.read.limits`, one value each). The command line adds only what is its own (its options, stdin); the readers are imported
when their kind is decided.

>>> decide_text("nn.LSTM(32, 128)", None), decide_text("hk.LSTM(128)", None).framework
(Input(kind='constructor', value='nn.LSTM(32, 128)', framework='torch', source='nn.LSTM(32, 128)'), 'haiku')
>>> decide_text('{"model_type": "mamba"}', None).kind, decide_text("nn.Sequential(nn.LSTM(8, 16))", None).kind
('config', 'code')
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .limits import MAX_CODE_BYTES, MAX_CONFIG_BYTES, MAX_LINE, MAX_MESSAGE, MAX_TEXT

__all__ = [
    "Input",
    "SUFFIXES",
    "MAX_LINE",
    "MAX_TEXT",
    "MAX_MESSAGE",
    "MAX_CODE_BYTES",
    "MAX_CONFIG_BYTES",
    "HUB_ID",
    "decide_text",
    "decide",
    "is_live",
]

#: File suffixes and the reader of each (the one table): model code, text as it would be pasted
#: (``print(model)``'s output, a config, a line), a config or a Keras model's JSON, and checkpoints
#: (read with ``torch.load(weights_only=True)``, safetensors' header, the ``.keras`` zip, ONNX).
SUFFIXES: Mapping[str, str] = {
    ".py": "code",
    ".txt": "text",
    ".json": "config",
    ".pt": "checkpoint",
    ".pth": "checkpoint",
    ".bin": "checkpoint",
    ".safetensors": "checkpoint",
    ".keras": "checkpoint",
    ".onnx": "checkpoint",
    ".h5": "checkpoint",
}

#: A Hugging Face Hub model id as users copy it (``ai21labs/Jamba-v0.1``): an owner and a name
#: (huggingface_hub's ``REPO_ID_REGEX``: letters, digits, ``-``, ``_``, ``.``).
HUB_ID = re.compile(r"[\w.-]{1,96}/[\w.-]{1,96}")


@dataclass(frozen=True)
class Input:
    """An input, as decided.

    Attributes
    ----------
    kind : {"constructor", "code", "file", "config", "state_dict", "live", "error"}
    value : object
        The constructor's or code's text, the path, the config (text, mapping or live object), the
        state dict, the live model, or the message.
    framework : str or None
        A constructor's framework; for code and files, the framework asked for (None: read from the code).
    source : str or None
        The text as given, where :attr:`value` is the call it assigns (``self.rnn = nn.GRU(8, 16)``).
    """

    kind: str
    value: Any
    framework: str | None
    source: str | None = None


def _suffix(text: str) -> str:
    return os.path.splitext(text.lower())[1]


def decide_text(text: str, framework: str | None, *, allow_paths: bool = True) -> Input:
    """What text is: a config's JSON, a path, model code or one constructor (in that order).

    JSON text of an object is a config, as copied out of a ``config.json``; a line with no call that
    names an existing file, ends with a suffix of :data:`SUFFIXES` or holds a path separator is a file
    (a Hub model id refused with how to download its config); text on several lines is model code
    unless it is one call and nothing else (a constructor wrapped over lines); a line assigning one
    call (``self.rnn = nn.GRU(8, 16)``) is that call; one line is a constructor when it is a call of a
    registered class with literal arguments (:func:`classify`), model code otherwise.

    Parameters
    ----------
    text : str
    framework : str or None
        The framework asked for.
    allow_paths : bool, default True
        False: never a path (text read from a file or stdin).

    Returns
    -------
    Input

    Raises
    ------
    FileNotFoundError
        A path that does not exist (a Hub model id: saying how to get its config).
    derive.read.line.parse.InputError
        See :func:`classify`.
    """
    from .configs.pretrained import is_json_text
    from .line.parse import classify
    from .pasted import assigned_call, one_call

    if is_json_text(text):
        return Input("config", text, None)
    given, text = text, assigned_call(text) or text
    if allow_paths and "\n" not in text and "(" not in text and len(text) < 4096:
        if os.path.exists(text):
            return Input("file", text, framework)
        if HUB_ID.fullmatch(text) and _suffix(text) not in SUFFIXES:
            raise FileNotFoundError(
                f"no such file: {text} (a model id of the Hugging Face Hub? derive reads no network: give it the "
                f"model's config, downloaded with `hf download {text} config.json`)"
            )
        if _suffix(text) in SUFFIXES or "/" in text or os.sep in text:
            raise FileNotFoundError(f"no such file: {text}")
    if "\n" in text and one_call(text) is None:
        return Input("code", given, framework)
    kind, chosen = classify(text, framework)
    return Input(kind, text if kind == "constructor" else given, chosen, given)


def is_live(obj: Any) -> bool:
    """Whether ``obj`` is a ``torch.nn.Module`` or a Keras layer (frameworks looked up, never imported).

    Parameters
    ----------
    obj : object

    Returns
    -------
    bool
    """
    torch, keras = sys.modules.get("torch"), sys.modules.get("keras")
    return (torch is not None and isinstance(obj, torch.nn.Module)) or (
        keras is not None and isinstance(obj, keras.layers.Layer)
    )


def decide(obj: Any, framework: str | None = None) -> Input:
    """What an object handed to :func:`derive.explain` is.

    In this order: a live torch module or Keras layer; a config (a dict with a ``model_type``, a live
    ``PretrainedConfig``, a ``config.json`` path or its text: :func:`derive.read.configs.pretrained.is_config`);
    a path (``os.PathLike``, or text :func:`decide_text` finds a path); other text (:func:`decide_text`);
    a mapping of tensor names (a state dict); anything else a live object of another framework.

    Parameters
    ----------
    obj : object
    framework : str or None
        The framework asked for.

    Returns
    -------
    Input

    Raises
    ------
    FileNotFoundError, derive.read.line.parse.InputError
        See :func:`decide_text`.
    """
    if is_live(obj):
        return Input("live", obj, framework)
    from .configs.pretrained import is_config

    if is_config(obj):
        return Input("config", obj, None)
    if isinstance(obj, os.PathLike):
        return Input("file", os.fspath(obj), framework)
    if isinstance(obj, str):
        return decide_text(obj, framework)
    if isinstance(obj, Mapping):
        return Input("state_dict", obj, framework)
    return Input("live", obj, framework)
