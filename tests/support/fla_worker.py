"""A flash-linear-attention subprocess for the tests (not a test module), run by the Python of
``.venv-ssm`` (torch 2.13 CPU, triton, fla-core / flash-linear-attention 0.6.0, transformers 5.23.0).

Protocol: one JSON request per line on stdin; one answer per line on stdout.

- ``{"kind": "layer", "cls": "RWKV6Attention" | "RWKV7Attention", "kwargs": {...}}``: the layer built
  on the CPU with those keyword arguments;
- ``{"kind": "model", "model_type": "rwkv6" | "rwkv7", "config": {...}}``:
  ``AutoModelForCausalLM.from_config(AutoConfig.for_model(model_type, **config))`` on the meta device;
- ``{"kind": "text", "text": "RWKV7Attention(hidden_size=64)"}``: a constructor line as users write it
  (``fla``, ``layers`` and the classes of ``fla.layers`` and the configs of ``fla.models`` bound): a
  layer built on the CPU, a config's model as ``"model"`` builds it.

A layer request may list ``"attributes"`` to read off the built object (its constructor's arguments as
it keeps them). Answer: ``{"ok": {"parameters": [[name, shape], ...], "total": int, "buffers": [[name,
shape], ...], "type": class name, "attributes": {...}, "g_norm": {...}}}`` in ``named_parameters()`` order, ``total`` the sum of ``numel()`` over
``parameters()`` (tied tensors once); ``{"error": "<type>: <message>"}`` when fla refuses.
Importing this module imports nothing of fla (pytest collects it for doctests).
"""

from __future__ import annotations

import json
import sys
import warnings


def build(request: dict) -> dict:
    import torch

    if request["kind"] == "text":
        module = _text(request["text"])
    elif request["kind"] == "layer":
        import fla.layers

        module = getattr(fla.layers, request["cls"])(**request["kwargs"])
    else:
        import fla.models
        from transformers import AutoConfig, AutoModelForCausalLM

        config = AutoConfig.for_model(request["model_type"], **request["config"])
        with torch.device("meta"):
            module = AutoModelForCausalLM.from_config(config)
    norm = getattr(module, "g_norm", None)
    return {
        "attributes": {key: getattr(module, key) for key in request.get("attributes", [])},
        "g_norm": {key: getattr(norm, key) for key in ("elementwise_affine", "affine") if hasattr(norm, key)},
        "parameters": [[n, list(p.shape)] for n, p in module.named_parameters()],
        "total": sum(p.numel() for p in module.parameters()),
        "buffers": [[n, list(b.shape)] for n, b in module.named_buffers()],
        "type": type(module).__name__,
    }


def _text(text: str) -> object:
    """The layer, or the model of the config, that a line of the CLI test builds (test code: trusted)."""
    import fla
    import fla.layers
    import fla.models
    import torch
    from transformers import AutoModelForCausalLM, PretrainedConfig

    names = {"fla": fla, "layers": fla.layers}
    names.update({n: getattr(fla.layers, n) for n in dir(fla.layers) if n[:1].isupper()})
    names.update({n: getattr(fla.models, n) for n in dir(fla.models) if n.endswith("Config")})
    made = eval(text, names)
    if isinstance(made, PretrainedConfig):
        with torch.device("meta"):
            return AutoModelForCausalLM.from_config(made)
    return made


def main() -> None:
    warnings.simplefilter("ignore")
    for line in sys.stdin:
        try:
            answer = {"ok": build(json.loads(line))}
        except Exception as error:  # reported to the test
            answer = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
