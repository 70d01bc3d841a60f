"""A mamba_ssm subprocess for the tests (not a test module), run by the Python of ``.venv-ssm``
(mamba-ssm 2.3.2.post1 with torch 2.13 CPU and triton; ``scripts/bootstrap --test``).

mamba_ssm imports on a CPU only with its CUDA extension stubbed: ``selective_scan_cuda`` is set to an
empty module before the import (no kernel runs: the modules are only built, on the meta device).

Protocol: one JSON request per line on stdin, ``{"kind": "Mamba" | "Mamba2", "kwargs": {...}}`` (the
block), ``{"kind": "text", "text": "Mamba(d_model=18)"}`` (a constructor line as users write it,
evaluated with ``mamba_ssm``, ``Mamba`` and ``Mamba2`` bound), ``{"kind": "lm", "config": {...}}`` (``MambaLMHeadModel(MambaConfig(**config))``) or
``{"kind": "attrs", "cls": "Mamba" | "Mamba2", "kwargs": {...}, "names": [...]}`` (attributes of the
built block; a tensor as true); one answer per line on stdout: ``{"ok": {"tensors": [[name, shape], ...], "buffers":
[...], "total": n}}`` (``named_parameters()`` order; ``total`` is ``sum(p.numel() for p in
parameters())``), ``{"ok": {name: value}}`` for attributes, or ``{"error": "Type: message"}``.
"""

from __future__ import annotations

import json
import sys


def _import() -> dict:
    import types
    import warnings

    warnings.simplefilter("ignore")
    sys.modules.setdefault("selective_scan_cuda", types.ModuleType("selective_scan_cuda"))
    import mamba_ssm
    import torch
    from mamba_ssm import Mamba, Mamba2
    from mamba_ssm.models.config_mamba import MambaConfig
    from mamba_ssm.models.mixer_seq_simple import MambaLMHeadModel

    def lm_1_0(
        d_model,
        n_layer,
        vocab_size,
        initializer_cfg=None,
        pad_vocab_size_multiple=1,
        device=None,
        dtype=None,
        ssm_cfg=None,
        norm_epsilon=1e-5,
        rms_norm=False,
        fused_add_norm=False,
        residual_in_fp32=False,
    ):
        """mamba-ssm 1.0.1's ``MambaLMHeadModel(d_model, n_layer, vocab_size, ...)`` (models/mixer_seq_simple.py
        173-206, its MixerModel's keywords 83-131; 1.0 installs beside no 2.x): 2.3.2's model of the
        MambaConfig 1.0's defaults make (nn.LayerNorm unless rms_norm, no vocabulary padding, head tied)."""
        config = MambaConfig(
            d_model=d_model,
            n_layer=n_layer,
            vocab_size=vocab_size,
            ssm_cfg=ssm_cfg or {},
            rms_norm=rms_norm,
            fused_add_norm=fused_add_norm,
            residual_in_fp32=residual_in_fp32,
            pad_vocab_size_multiple=pad_vocab_size_multiple,
            tie_embeddings=True,
        )
        return MambaLMHeadModel(config)

    return {
        "torch": torch,
        "mamba_ssm": mamba_ssm,
        "Mamba": Mamba,
        "Mamba2": Mamba2,
        "MambaConfig": MambaConfig,
        "lm": MambaLMHeadModel,
        "MambaLMHeadModel": lm_1_0,
    }


def answer(request: dict, env: dict) -> object:
    torch = env["torch"]
    with torch.device("meta"):
        if request["kind"] == "lm":
            module = env["lm"](env["MambaConfig"](**request["config"]))
        elif request["kind"] == "attrs":
            block = env[request["cls"]](**request["kwargs"])
            return {name: _attribute(block, name, torch) for name in request["names"]}
        elif request["kind"] == "text":  # test code's own line (trusted), as the CLI test pastes it
            names = {k: env[k] for k in ("mamba_ssm", "Mamba", "Mamba2", "MambaLMHeadModel")}
            module = eval(request["text"], names)
            if isinstance(module, env["MambaConfig"]):  # a config line: the model mamba_ssm builds from it
                module = env["lm"](module)
        else:
            module = env[request["kind"]](**request["kwargs"])
    return {
        "tensors": [[n, list(p.shape)] for n, p in module.named_parameters()],
        "buffers": [[n, list(b.shape)] for n, b in module.named_buffers()],
        "total": sum(p.numel() for p in module.parameters()),
    }


def _attribute(obj: object, dotted: str, torch: object) -> object:
    """An attribute by its dotted path; a tensor as True (it exists), None as None."""
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return True if isinstance(obj, torch.Tensor) else obj


def main() -> None:
    env = _import()
    for line in sys.stdin:
        try:
            reply = {"ok": answer(json.loads(line), env)}
        except Exception as error:  # reported to the test, which fails with it (or expects it)
            reply = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
