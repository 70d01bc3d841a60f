"""The tensors a quantizer's own build stores, run in a subprocess (not a test module; nothing here reads derive).

``python quant_worker.py JSON`` prints a JSON object (a JSON list of asks, on stdin with ``-``: a JSON list of
answers, each run in turn in this one process, an ask that fails answered ``{"error": traceback}``): ``{"tensors": {name: [dtype, shape]}, "buffers": [...]``
(the buffers and the tied names, which hold no tensor of their own), ``"quantizer"`` (the class of transformers'
quantizer that made them), ``"versions": {...}}`` (transformers', torch's and the quantizer's package's) — or
``{"missing": "package"}`` when the quantizer's package is not installed in this Python. The JSON asks:

``model_type``, ``config``
    A tiny transformers model (``AutoConfig.for_model``).
``quantization_config``
    The config's ``quantization_config``, as a released ``config.json`` holds it.
``dtype``
    The model's dtype.
``mode``
    ``"meta"``: the model built on the meta device, the quantizer made from the config
    (``AutoHfQuantizer.from_config(..., pre_quantized=True)``) replacing its modules
    (``preprocess_model``, as ``from_pretrained`` does before loading a quantized checkpoint), and every
    entry of the model's ``state_dict`` listed — what a checkpoint of it must hold. ``"checkpoint"``
    (bitsandbytes, whose packed shapes exist only once weights are quantized): the tiny model saved with
    random weights, loaded with the quantization config on the CPU (bitsandbytes quantizes on load), saved
    again, and the written ``model.safetensors`` header read (``safe_open(...).get_slice(k)``: dtype and
    shape) beside the loaded model's ``state_dict`` (the same tensors, named as in memory: a checkpoint of fused
    experts is written in the release's per-expert names); a double-quantized tensor's packed quant state is
    unpacked and its ``nested_offset`` text returned.

The quantizers that run on this CPU machine (their packages in their own environment, pointed at by
``DERIVE_QUANT_PYTHON``): transformers' fine-grained FP8 (no other package), bitsandbytes, compressed-tensors,
GPTQModel with optimum (GPTQ and AWQ).
"""

from __future__ import annotations

import json
import sys
import tempfile
from typing import Any

_DTYPES = {"F32": "float32", "F16": "float16", "BF16": "bfloat16", "U8": "uint8", "I8": "int8", "I32": "int32",
           "I64": "int64", "F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2"}  # fmt: skip

_PACKAGES = {"bitsandbytes": ["bitsandbytes"], "gptq": ["gptqmodel", "optimum"], "awq": ["gptqmodel"],
             "compressed-tensors": ["compressed_tensors"], "fp8": []}  # fmt: skip


def _versions(method: str) -> dict[str, str]:
    import importlib
    import importlib.metadata

    import torch
    import transformers

    out = {"transformers": transformers.__version__, "torch": torch.__version__}
    for package in _PACKAGES.get(method, []):
        importlib.import_module(package)
        out[package.replace("_", "-")] = importlib.metadata.version(package.replace("_", "-"))  # the distribution
    return out


def _meta(ask: dict[str, Any]) -> dict[str, Any]:
    import torch
    import transformers
    from transformers.quantizers.auto import AutoHfQuantizer, AutoQuantizationConfig

    dtype = getattr(torch, ask["dtype"])
    cfg = transformers.AutoConfig.for_model(ask["model_type"], **ask["config"])
    cfg.quantization_config = ask["quantization_config"]
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=dtype)
    buffers = [name for name, _ in model.named_buffers()] + list(model.all_tied_weights_keys)  # one tensor, two names
    qc = AutoQuantizationConfig.from_dict(dict(ask["quantization_config"]))
    quantizer = AutoHfQuantizer.from_config(qc, pre_quantized=True)
    if ask["quantization_config"]["quant_method"] == "compressed-tensors":
        quantizer.validate_environment(device_map="cpu", dtype=dtype)  # sets its kernel choice
    quantizer.preprocess_model(model, dtype=dtype, checkpoint_files=None, device_map="cpu")
    tensors = {k: [str(v.dtype).removeprefix("torch."), list(v.shape)] for k, v in model.state_dict().items()}
    return {"tensors": tensors, "buffers": buffers, "quantizer": type(quantizer).__name__}


def _checkpoint(ask: dict[str, Any]) -> dict[str, Any]:
    import torch
    import transformers
    from bitsandbytes.utils import unpack_tensor_to_dict
    from safetensors import safe_open

    dtype = getattr(torch, ask["dtype"])
    cfg = transformers.AutoConfig.for_model(ask["model_type"], **ask["config"])
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(cfg).to(dtype)
    buffers = [name for name, _ in model.named_buffers()] + list(model.all_tied_weights_keys)
    q = transformers.BitsAndBytesConfig(**{k: v for k, v in ask["quantization_config"].items() if k != "quant_method"})
    with tempfile.TemporaryDirectory() as plain, tempfile.TemporaryDirectory() as packed:
        model.save_pretrained(plain)
        loaded = transformers.AutoModelForCausalLM.from_pretrained(
            plain, quantization_config=q, device_map="cpu", dtype=dtype
        )
        tensors = {k: [str(v.dtype).removeprefix("torch."), list(v.shape)] for k, v in loaded.state_dict().items()}
        quantizer = type(loaded.hf_quantizer).__name__
        loaded.save_pretrained(packed)
        header, offsets = {}, {}
        with safe_open(f"{packed}/model.safetensors", "pt") as f:
            for key in f.keys():  # noqa: SIM118  (safe_open is not iterable)
                piece = f.get_slice(key)
                header[key] = [_DTYPES[piece.get_dtype()], list(piece.get_shape())]
                if ".quant_state.bitsandbytes__" in key:
                    state = unpack_tensor_to_dict(f.get_tensor(key))
                    if "nested_offset" in state:
                        offsets[key] = json.dumps(state["nested_offset"])
    return {"tensors": tensors, "header": header, "buffers": buffers, "offsets": offsets, "quantizer": quantizer}


def answer(ask: dict) -> dict:
    """One ask's answer (see the module's docstring)."""
    method = ask["quantization_config"]["quant_method"]
    try:
        versions = _versions(method)
    except ImportError as error:
        return {"missing": str(error.name or error)}
    out = _checkpoint(ask) if ask.get("mode") == "checkpoint" else _meta(ask)
    out["versions"] = versions
    return out


def main() -> None:
    import traceback

    asks = json.loads(sys.stdin.read() if sys.argv[1] == "-" else sys.argv[1])
    if isinstance(asks, dict):
        print(json.dumps(answer(asks)))
        return
    answers = []
    for ask in asks:
        try:
            answers.append(answer(ask))
        except Exception:  # one failing ask is that case's failure, not every case's
            answers.append({"error": traceback.format_exc()[-3000:]})
    print(json.dumps(answers))


if __name__ == "__main__":
    main()
