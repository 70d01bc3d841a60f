"""mamba_ssm and flash-linear-attention objects read by derive, in their own environment (not a test
module): run by the Python of ``.venv-ssm`` (torch 2.13 CPU, triton, mamba-ssm 2.3.2.post1, fla 0.6.0),
with this worktree's ``derive`` on the path.

Protocol: one JSON request per line on stdin, one answer per line on stdout (``{"ok": ...}`` or
``{"error": "<Type>: <message>"}``):

- ``{"kind": "explain", "cls": C, "kwargs": {...}}``: the object built on ``torch.device("meta")``
  (C: ``Mamba``, ``Mamba2``, ``MambaLMHeadModel`` (kwargs: the ``MambaConfig``), an fla layer, or an
  fla model ``RWKV6ForCausalLM`` / ``RWKV7ForCausalLM`` (kwargs: its config)), optionally inside a
  wrapper module (``"wrap": true``); answers ``{"report": derive.explain(obj).to_dict(), "tensors":
  [[name, shape], ...], "total": n}`` — the tensors and total read off the object itself;
- ``{"kind": "save", "kwargs": {...}, "path": P}``: a ``MambaLMHeadModel`` built on the CPU (real
  tensors), ``torch.save(model.state_dict(), P)``; answers its tensors and total;
- ``{"kind": "mismatch", "a": {...}, "b": {...}}``: ``MambaLMHeadModel(b).load_state_dict(MambaLMHeadModel(a).state_dict())``
  on the meta device; answers the RuntimeError's message (or null when it loads).
"""

from __future__ import annotations

import contextlib
import json
import sys
import types
from pathlib import Path


def _setup() -> dict:
    import warnings

    warnings.simplefilter("ignore")
    sys.modules.setdefault("selective_scan_cuda", types.ModuleType("selective_scan_cuda"))
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    import torch

    return {"torch": torch}


def _make(cls: str, kwargs: dict) -> object:
    if cls in ("Mamba", "Mamba2"):
        import mamba_ssm

        return getattr(mamba_ssm, cls)(**kwargs)
    if cls == "MambaLMHeadModel":
        from mamba_ssm.models.config_mamba import MambaConfig
        from mamba_ssm.models.mixer_seq_simple import MambaLMHeadModel

        return MambaLMHeadModel(MambaConfig(**kwargs))
    if cls.endswith("ForCausalLM"):
        import fla.models

        config = getattr(fla.models, cls.replace("ForCausalLM", "Config"))(**kwargs)
        return getattr(fla.models, cls)(config)
    from fla import layers

    return getattr(layers, cls)(**kwargs)


def _listing(module: object) -> dict:
    return {
        "tensors": [[n, list(p.shape)] for n, p in module.named_parameters()],
        "total": sum(p.numel() for p in module.parameters()),
    }


def answer(request: dict, env: dict) -> object:
    torch = env["torch"]
    if request["kind"] == "save":
        module = _make("MambaLMHeadModel", request["kwargs"])
        torch.save(module.state_dict(), request["path"])
        return _listing(module)
    if request["kind"] == "mismatch":
        with torch.device("meta"):
            a, b = _make("MambaLMHeadModel", request["a"]), _make("MambaLMHeadModel", request["b"])
        try:
            b.load_state_dict(a.state_dict(), assign=True)
        except RuntimeError as error:
            return str(error)
        return None
    with torch.device("meta"), contextlib.redirect_stdout(sys.stderr):  # stdout carries the answers only
        module = _make(request["cls"], request.get("kwargs", {}))
        if request.get("wrap"):
            wrapper = torch.nn.Module()
            wrapper.inner = module
            wrapper.head = torch.nn.Linear(3, 2)
            module = wrapper
    import derive

    return {"report": derive.explain(module).to_dict(), **_listing(module)}


def main() -> None:
    env = _setup()
    for line in sys.stdin:
        try:
            reply = {"ok": answer(json.loads(line), env)}
        except Exception as error:  # reported to the test, which fails with it (or expects it)
            reply = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
