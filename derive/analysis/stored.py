"""Weights as stored: every tensor a quantized checkpoint keeps for a model's parameters, its dtype and shape.

A model's tree (:mod:`derive.tree`) holds its logical parameters, as ``from_config`` builds them
(which ignores ``quantization_config``). A quantized release stores other tensors in their place —
packed integers, scales, zero points — and :func:`stored_tensors` gives them, named as the
checkpoint names them, from the config's ``quantization_config``:

``bitsandbytes``, 4-bit (``load_in_4bit``; ``bnb_4bit_quant_type`` nf4 or fp4)
    Each converted linear's ``weight`` becomes uint8 ``(ceil(n / 2), 1)`` (two 4-bit values a byte,
    n = out·in), with ``weight.absmax`` — one scale per block of 64 values: float32
    ``(ceil(n / 64),)``, or with ``bnb_4bit_use_double_quant`` uint8 of the same length plus
    ``weight.nested_absmax`` float32 ``(ceil(blocks / 256),)`` and ``weight.nested_quant_map``
    float32 ``(256,)`` —, ``weight.quant_map`` float32 ``(16,)`` and
    ``weight.quant_state.bitsandbytes__<type>``: uint8, the bytes of a JSON text of the type, block
    size, dtype and shape (bitsandbytes ``functional.py`` ``QuantState.as_dict``, ``utils.py``
    ``pack_dict_to_tensor``). With double quantization that text also holds the mean of the
    absmax, written as Python writes a float (``json.dumps``): its length depends on the weights,
    so it is counted at its longest (24 characters, :data:`OFFSET_TEXT`) — a bound, at most 21
    bytes a linear over the stored length, said in :attr:`Stored.bound`.
``bitsandbytes``, 8-bit (``load_in_8bit``)
    ``weight`` int8 of the same shape, ``SCB`` float32 ``(out,)`` (one scale per row) and
    ``weight_format`` uint8 ``()``.
``gptq`` (GPTQModel's packing; ``bits``, ``group_size``, ``desc_act``, ``sym``)
    ``qweight`` int32 ``(ceil(in · bits / 32), out)``, ``qzeros`` int32 ``(groups, ceil(out · bits /
    32))``, ``scales`` float16 ``(groups, out)``, ``g_idx`` int32 ``(in,)``, groups = ceil(in /
    group_size) (``group_size`` -1: one group), the bias float16 (GPTQModel 7.7.0
    ``gptqmodel/nn_modules/qlinear/__init__.py`` lines 922–958, ``_register_gptq_buffers``).
``awq`` (the GEMM layout: transposed against GPTQ's)
    ``qweight`` int32 ``(in, ceil(out · bits / 32))``, ``qzeros`` int32 ``(groups, ceil(out · bits /
    32))``, ``scales`` float16 ``(groups, out)``, groups = in // group_size, the bias float16 (the
    buffers transformers' ``replace_with_awq_linear`` asks for with ``register_buffers=True``: GPTQModel
    7.7.0 ``AWQuantLinear.__init__``, ``gptqmodel/nn_modules/qlinear/__init__.py`` lines 1769–1790); a
    ``group_size`` that does not divide a linear's input features is refused.
``fp8`` (fine-grained FP8, as DeepSeek-V3 ships)
    ``weight`` float8_e4m3fn of the same shape with ``weight_scale_inv`` float32
    ``(ceil(out / b_n), ceil(in / b_k))`` for ``weight_block_size`` [b_n, b_k] (``()`` without
    one); fused experts' ``gate_up_proj`` / ``down_proj`` likewise with ``<name>_scale_inv`` of
    ``(E, ceil(out / b_n), ceil(in / b_k))`` (transformers ``integrations/finegrained_fp8.py``,
    ``FP8Linear``, ``FP8Experts``, ``_alloc_expert_proj``); ``activation_scheme`` "static" adds
    ``activation_scale`` float32 ``()`` (experts: ``<name>_activation_scale`` ``(E,)``);
    ``scale_fmt`` "ue8m0" keeps the scales as float8_e8m0fnu; a converted linear's bias is float32
    (``FP8Linear.__init__`` makes it in torch's default dtype).
``mxfp4`` (gpt-oss)
    Each expert tensor (E, out, in) as ``<name>_blocks`` uint8 ``(E, out, in / 32, 16)`` and
    ``<name>_scales`` uint8 ``(E, out, in / 32)``: blocks of 32 four-bit values (16 bytes) with one
    E8M0 scale each (transformers ``integrations/mxfp4.py``, ``convert_moe_packed_tensors``; the names
    ``Mxfp4HfQuantizer.serialized_names``); the experts' biases in the model's dtype, as the release stores
    them. transformers converts only gpt-oss's experts (``replace_with_mxfp4_linear``: ``GptOssMLP``).
``compressed-tensors``
    Each ``config_groups`` group's ``weights`` (``num_bits``, ``type``, ``symmetric``,
    ``strategy`` tensor / channel / group / block, ``group_size``, ``block_structure``) on the
    linears its ``targets`` name and ``ignore`` does not: ``format`` "pack-quantized" packs
    ``num_bits`` values into int32 ``weight_packed`` ``(out, ceil(in · bits / 32))`` with
    ``weight_shape`` int64 ``(2,)``; "int-quantized" and "naive-quantized" keep an int8
    ``weight``, "float-quantized" a float8_e4m3fn one; ``weight_scale`` in the model's dtype
    (``(1,)`` per tensor, ``(out, 1)`` per channel, ``(out, ceil(in / group_size))`` per group,
    ``(ceil(out / b_n), ceil(in / b_k))`` per block) and, asymmetric, ``weight_zero_point`` (int8 of the
    scale's shape, as the quantizer's module holds it); static
    ``input_activations`` add ``input_scale`` (and ``input_zero_point`` when asymmetric).

A method's linears are transformers' conversion targets: ``nn.Linear`` modules (bitsandbytes:
also GPT-2's ``Conv1D``, stored transposed), less ``modules_to_not_convert`` (bitsandbytes:
``llm_int8_skip_modules``; compressed-tensors: ``ignore``) matched as transformers matches them
(``quantizers/quantizers_utils.py``, ``should_convert_module``: a prefix up to a module boundary, a
regular expression, or a suffix); where the config gives none (bitsandbytes, fp8; AWQ always)
transformers' default skips are added: the output embedding (``lm_head``), tied modules and the last
parameter's module (``quantizers/base.py``, ``get_keys_to_not_convert``). GPTQ converts the linears
of the decoder layers only (optimum's ``GPTQQuantizer.convert_model``: the block list,
``modules_in_block_to_quantize``), the head when ``lm_head`` is true. Every other tensor is stored
in the model's dtype.

Without a ``quantization_config`` every parameter is stored in ``dtype``. The model's buffers
(rotary ``inv_freq``) are left out: transformers does not save them (``persistent=False``).

Verification: ``tests/analysis/test_stored.py`` holds each method against the quantizer's own
build — transformers' quantizer replacing the modules of a meta-device model, or a checkpoint it
wrote (its safetensors header) — tensor by tensor: fine-grained FP8 (transformers 5.23.0),
bitsandbytes 0.50.2, compressed-tensors 0.20.0; GPTQ and AWQ against gptqmodel 7.7.0 and optimum
2.3.0 where they install (gptqmodel 7.7.0 requires torch >= 2.14.1: not in this project's test
environment, pinned to torch 2.13.0, where those cases skip and the buffers above are cited instead).
MXFP4's quantizer needs kernels from the Hub: its layout is held against transformers' own
dequantizer instead (derive's blocks and scales dequantize to the gpt-oss experts' shapes).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..tree import Module, Param, named_modules, named_parameters
from .figures import DTYPE_BYTES, plain

__all__ = [
    "ELEMENT_BYTES",
    "METHODS",
    "OFFSET_TEXT",
    "StoredTensor",
    "Stored",
    "stored",
    "listed",
    "weight_bytes",
    "should_convert",
]

#: Bytes per element of the dtypes a checkpoint stores (torch's element sizes).
ELEMENT_BYTES = {
    "float64": 8,
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "float8_e8m0fnu": 1,
    "int64": 8,
    "int32": 4,
    "int16": 2,
    "int8": 1,
    "uint8": 1,
}

#: The ``quant_method`` values derive stores (transformers' ``QuantizationMethod`` names).
METHODS = ("bitsandbytes", "gptq", "awq", "fp8", "mxfp4", "compressed-tensors")

#: The longest text ``json.dumps`` writes for the float32 mean bitsandbytes keeps in a
#: double-quantized tensor's packed quant state (``-1.2345678901234567e-308``: sign, 17 digits, point,
#: exponent): the bound :func:`stored` counts it at.
OFFSET_TEXT = 24


@dataclass(frozen=True, slots=True)
class StoredTensor:
    """One tensor of a checkpoint.

    Attributes
    ----------
    name : str
        As the checkpoint names it (``model.layers.0.self_attn.q_proj.qweight``).
    dtype : str
        torch's name (``"int32"``, ``"float8_e4m3fn"``, ``"bfloat16"``).
    shape : tuple of int
    of : str
        The logical parameter it stores (or helps store: a scale), by its full name.
    """

    name: str
    dtype: str
    shape: tuple[int, ...]
    of: str

    @property
    def numel(self) -> int:
        """Entries (units: elements)."""
        total = 1
        for dim in self.shape:
            total *= dim
        return total

    @property
    def nbytes(self) -> int:
        """Bytes (units: bytes; ``numel`` × the dtype's size)."""
        return self.numel * ELEMENT_BYTES[self.dtype]


@dataclass(frozen=True)
class Stored:
    """The stored tensors of a model and what they add up to.

    Attributes
    ----------
    tensors : tuple of StoredTensor
        In the model's parameter order, each parameter's tensors together.
    method : str or None
        The ``quant_method`` (None: not quantized).
    bound : str or None
        Why :attr:`nbytes` is an upper bound and by how much at most (bitsandbytes' double
        quantization: the packed state's float text); None: exact.
    slack : int
        The most :attr:`nbytes` may exceed the checkpoint's bytes (0 when exact). Units: bytes.
    """

    tensors: tuple[StoredTensor, ...]
    method: str | None
    bound: str | None = None
    slack: int = 0

    @property
    def nbytes(self) -> int:
        """Bytes of every tensor (units: bytes)."""
        return sum(t.nbytes for t in self.tensors)

    def by_dtype(self) -> dict[str, int]:
        """Bytes by stored dtype (units: bytes), in order of first appearance."""
        out: dict[str, int] = {}
        for t in self.tensors:
            out[t.dtype] = out.get(t.dtype, 0) + t.nbytes
        return out


def _ints(shape: tuple[Any, ...], name: str) -> tuple[int, ...]:
    if not all(type(d) is int for d in shape):
        raise ValueError(f"weights as stored need int sizes; {name} has the shape {shape}")
    return shape


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def should_convert(name: str, patterns: list[str] | None) -> bool:
    """Whether transformers converts the module ``name`` given ``modules_to_not_convert`` patterns.

    transformers ``quantizers/quantizers_utils.py`` ``should_convert_module``: a pattern skips a
    module when it matches from the start up to a module boundary (``layer.1`` skips
    ``layer.1.attn``, not ``layer.11.attn``), as a regular expression with that boundary, or as a
    suffix (``fc1`` skips ``model.decoder.layers.23.fc1``).

    Parameters
    ----------
    name : str
        The module's full dotted name.
    patterns : list of str or None

    Returns
    -------
    bool

    Examples
    --------
    >>> should_convert("model.layers.1.mlp", ["model.layers.1"]), should_convert("model.layers.11.mlp", ["model.layers.1"])
    (False, True)
    >>> should_convert("lm_head", ["lm_head"]), should_convert("model.layers.0.mlp.gate_proj", ["mlp.gate"])
    (False, True)
    """
    if patterns is None:
        return True
    boundary = r"(?:(?<=\.)|(?=\.|$))"
    for key in patterns:
        try:
            hit = re.match(rf"(?:{key}){boundary}", name)
        except re.error:
            hit = None
        if hit or name.endswith(key):
            return False
    return True


def default_skips(model: Module) -> list[str]:
    """transformers' default modules not to convert: the output embedding (``lm_head``), both sides of
    every tie and the last parameter's module (``quantizers/base.py``, ``get_keys_to_not_convert``).

    Parameters
    ----------
    model : derive.tree.Module

    Returns
    -------
    list of str
        Module names.
    """
    names = [(n, p) for n, p in named_parameters(model, ties=True)]
    skips: set[str] = set()
    for name, p in names:
        if p.tied_to is not None:
            skips |= {name, p.tied_to}
    untied = [n for n, p in names if p.tied_to is None]
    if untied:
        skips.add(untied[-1])
    skips = {s.removesuffix(".weight") for s in skips}
    if any(path == "lm_head" for path, _ in named_modules(model, expand=False)):
        skips.add("lm_head")
    return sorted(skips)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


# --- the methods: each a function (path, module, config, dtype) -> stored tensors, or None to keep it --------


Rule = Callable[[str, Module, Param], "list[StoredTensor] | None"]


def _linear_weight(module: Module, param: Param, types: tuple[str, ...]) -> bool:
    return module.type in types and param.name == "weight" and len(param.shape) == 2


def _bnb_json_length(qc: Mapping[str, Any], shape: tuple[int, ...], dtype: str, nested: bool) -> int:
    import json

    text: dict[str, Any] = {
        "quant_type": qc.get("bnb_4bit_quant_type", "fp4"),
        "blocksize": 64,
        "dtype": dtype,
        "shape": list(shape),
    }
    if nested:
        text |= {"nested_blocksize": 256, "nested_dtype": "float32", "nested_offset": 0}
        return len(json.dumps(text)) - 1 + OFFSET_TEXT
    return len(json.dumps(text))


def _bitsandbytes(model: Module, qc: Mapping[str, Any], dtype: str) -> tuple[Rule, str | None]:
    four = bool(qc.get("load_in_4bit") or qc.get("_load_in_4bit"))
    eight = bool(qc.get("load_in_8bit") or qc.get("_load_in_8bit"))
    if four == eight:
        raise ValueError("quantization_config: bitsandbytes needs one of load_in_4bit or load_in_8bit true")
    storage = qc.get("bnb_4bit_quant_storage", "uint8") or "uint8"
    if four and storage != "uint8":
        raise ValueError(
            f"quantization_config.bnb_4bit_quant_storage {storage!r}: derive stores bitsandbytes' 4-bit weights "
            "as uint8 only"
        )
    quant_type = qc.get("bnb_4bit_quant_type", "fp4")
    if four and quant_type not in ("nf4", "fp4"):
        raise ValueError(f"quantization_config.bnb_4bit_quant_type must be 'nf4' or 'fp4', got {quant_type!r}")
    skip = qc.get("llm_int8_skip_modules")
    patterns = default_skips(model) if skip is None else list(skip)
    nested = bool(qc.get("bnb_4bit_use_double_quant"))

    def rule(path: str, module: Module, param: Param) -> list[StoredTensor] | None:
        if not _linear_weight(module, param, ("Linear", "Conv1D")) or not should_convert(path, patterns):
            return None
        shape = _ints(param.shape, _join(path, param.name))
        if module.type == "Conv1D":  # transformers transposes GPT-2's Conv1D before quantizing
            shape = (shape[1], shape[0])
        w = _join(path, "weight")
        if eight:
            return [
                StoredTensor(_join(path, "SCB"), "float32", (shape[0],), w),
                StoredTensor(w, "int8", shape, w),
                StoredTensor(_join(path, "weight_format"), "uint8", (), w),
            ]
        n = shape[0] * shape[1]
        blocks = _cdiv(n, 64)
        out = [StoredTensor(w, "uint8", (_cdiv(n, 2), 1), w)]
        if nested:
            out += [
                StoredTensor(f"{w}.absmax", "uint8", (blocks,), w),
                StoredTensor(f"{w}.nested_absmax", "float32", (_cdiv(blocks, 256),), w),
                StoredTensor(f"{w}.nested_quant_map", "float32", (256,), w),
            ]
        else:
            out.append(StoredTensor(f"{w}.absmax", "float32", (blocks,), w))
        out.append(StoredTensor(f"{w}.quant_map", "float32", (16,), w))
        length = _bnb_json_length(qc, shape, dtype, nested)
        out.append(StoredTensor(f"{w}.quant_state.bitsandbytes__{quant_type}", "uint8", (length,), w))
        return out

    bound = None
    if four and nested:
        bound = (
            "bitsandbytes' double quantization writes the mean of each tensor's absmax as JSON text in its "
            f"packed quant state, of a length that depends on the weights: counted at {OFFSET_TEXT} characters, "
            f"at most {OFFSET_TEXT - 3} bytes a linear over the checkpoint"
        )
    return rule, bound


def _bits(qc: Mapping[str, Any], method: str, allowed: tuple[int, ...]) -> int:
    bits = qc.get("bits", qc.get("w_bit"))
    if type(bits) is not int or bits not in allowed:
        raise ValueError(f"quantization_config.bits for {method} must be one of {list(allowed)}, got {bits!r}")
    return bits


def _group(qc: Mapping[str, Any], method: str, features: int, name: str) -> int:
    size = qc.get("group_size", qc.get("q_group_size", 128))
    if type(size) is not int or (size < 1 and size != -1):
        raise ValueError(f"quantization_config.group_size for {method} must be a positive int or -1, got {size!r}")
    return features if size == -1 else size


def _refuse_fused_experts(model: Module, method: str) -> None:
    for path, module in named_modules(model, expand=False):
        if module.routed is not None:
            raise ValueError(
                f"quantization_config: {method} checkpoints store each routed expert as its own linear "
                f"({path}: transformers fuses them into 3-D tensors): not derived for a model with routed experts"
            )


def _gptq(model: Module, qc: Mapping[str, Any], dtype: str) -> tuple[Rule, str | None]:
    bits = _bits(qc, "gptq", (2, 3, 4, 8))
    _refuse_fused_experts(model, "gptq")
    fmt = qc.get("checkpoint_format", qc.get("format", "gptq")) or "gptq"
    if fmt not in ("gptq", "gptq_v2"):
        raise ValueError(f"quantization_config.checkpoint_format {fmt!r}: derive stores gptq's own layout only")
    inside = qc.get("modules_in_block_to_quantize")
    wanted = None if inside is None else [name for group in inside for name in group]
    head = bool(qc.get("lm_head"))

    def rule(path: str, module: Module, param: Param) -> list[StoredTensor] | None:
        if module.type not in ("Linear", "Conv1D"):
            return None
        in_block = _in_block(path)
        if not (in_block or (head and path == "lm_head")):
            return None
        if wanted is not None and in_block and not any(path.endswith("." + w) for w in wanted):
            return None
        shape = _ints(param.shape, _join(path, param.name))
        if param.name == "bias":
            return [StoredTensor(_join(path, "bias"), "float16", shape, _join(path, "bias"))]
        out_f, in_f = (shape[1], shape[0]) if module.type == "Conv1D" else shape
        if param.name != "weight":
            return None
        group = _group(qc, "gptq", in_f, path)
        groups = _cdiv(in_f, group)
        w = _join(path, "weight")
        return [
            StoredTensor(_join(path, "qweight"), "int32", (_cdiv(in_f * bits, 32), out_f), w),
            StoredTensor(_join(path, "qzeros"), "int32", (groups, _cdiv(out_f * bits, 32)), w),
            StoredTensor(_join(path, "scales"), "float16", (groups, out_f), w),
            StoredTensor(_join(path, "g_idx"), "int32", (in_f,), w),
        ]

    return rule, None


#: The decoder blocks optimum's GPTQ quantizes (``optimum/gptq/constants.py`` ``BLOCK_PATTERNS``), and the
#: layers of a Mamba-style backbone.
BLOCKS = ("transformer.h", "model.decoder.layers", "gpt_neox.layers", "model.layers", "backbone.layers")


def _in_block(path: str) -> bool:
    """Whether a module sits inside one of the decoder blocks (``model.layers.3.mlp.up_proj``)."""
    return any(re.match(rf"{re.escape(b)}\.\d+\.", path) for b in BLOCKS)


def _awq(model: Module, qc: Mapping[str, Any], dtype: str) -> tuple[Rule, str | None]:
    bits = _bits(qc, "awq", (4,))
    _refuse_fused_experts(model, "awq")
    version = str(qc.get("version", qc.get("format", "gemm")) or "gemm").lower()
    if version != "gemm":
        raise ValueError(f"quantization_config.version {version!r}: derive stores AWQ's GEMM layout only")
    if qc.get("zero_point", True) is not True:
        raise ValueError("quantization_config.zero_point false: derive stores AWQ with zero points only")
    patterns = default_skips(model) + list(qc.get("modules_to_not_convert") or [])

    def rule(path: str, module: Module, param: Param) -> list[StoredTensor] | None:
        if module.type != "Linear" or not should_convert(path, patterns):
            return None
        shape = _ints(param.shape, _join(path, param.name))
        out_f, in_f = shape if param.name == "weight" else (shape[0], 0)
        if param.name == "bias":
            return [StoredTensor(_join(path, "bias"), "float16", (out_f,), _join(path, "bias"))]
        if param.name != "weight":
            return None
        group = _group(qc, "awq", in_f, path)
        if in_f % group:
            raise ValueError(
                f"quantization_config.group_size {group} does not divide {path}'s {in_f:,} input features: "
                "AWQ's linear keeps in_features // group_size groups of scales and zeros (GPTQModel's "
                "AWQuantLinear), which leaves features without a scale: not derived"
            )
        groups = in_f // group
        w = _join(path, "weight")
        return [
            StoredTensor(_join(path, "qweight"), "int32", (in_f, _cdiv(out_f * bits, 32)), w),
            StoredTensor(_join(path, "qzeros"), "int32", (groups, _cdiv(out_f * bits, 32)), w),
            StoredTensor(_join(path, "scales"), "float16", (groups, out_f), w),
        ]

    return rule, None


def _fp8(model: Module, qc: Mapping[str, Any], dtype: str) -> tuple[Rule, str | None]:
    if qc.get("dequantize"):
        return (lambda path, module, param: None), None
    fmt = qc.get("fmt", "e4m3")
    if fmt not in ("e4m3", "float8_e4m3fn"):  # the format by its name and by torch's (MiniMax-M2.5's)
        raise ValueError(f"quantization_config.fmt {fmt!r}: transformers' fine-grained FP8 stores e4m3 only")
    if qc.get("modules_to_convert"):
        raise ValueError("quantization_config.modules_to_convert (FP8 embeddings): not derived")
    if qc.get("expert_dtype", "fp8") not in ("fp8", None):
        raise ValueError(f"quantization_config.expert_dtype {qc['expert_dtype']!r}: derive stores fp8 experts only")
    block = qc.get("weight_block_size")
    if block is not None and not (
        isinstance(block, (list, tuple)) and len(block) == 2 and all(type(b) is int and b > 0 for b in block)
    ):
        raise ValueError(f"quantization_config.weight_block_size must be two positive ints, got {block!r}")
    static = qc.get("activation_scheme", "dynamic") == "static"
    scale = "float8_e8m0fnu" if qc.get("scale_fmt", "float") == "ue8m0" else "float32"
    skip = qc.get("modules_to_not_convert")
    patterns = default_skips(model) if skip is None else list(skip)

    def rule(path: str, module: Module, param: Param) -> list[StoredTensor] | None:
        if not should_convert(path, patterns):
            return None
        name = _join(path, param.name)
        if path.endswith(".experts") or path == "experts":
            if len(param.shape) != 3:
                raise ValueError(f"fine-grained FP8 experts hold no bias (FP8Experts); {name} is one")
            e, out_f, in_f = _ints(param.shape, name)
            floor = 2 if param.name == "gate_up_proj" else 1
            sf = (e, max(_cdiv(out_f, block[0]), floor), _cdiv(in_f, block[1])) if block else (e, floor, 1)
            made = [StoredTensor(name, "float8_e4m3fn", (e, out_f, in_f), name),
                    StoredTensor(f"{name}_scale_inv", scale, sf, name)]  # fmt: skip
            if static:
                made.append(StoredTensor(f"{name}_activation_scale", "float32", (e,), name))
            return made
        if module.type != "Linear" or param.name not in ("weight", "bias"):
            return None
        if param.name == "bias":  # FP8Linear makes its bias in torch's default dtype, float32
            return [StoredTensor(name, "float32", _ints(param.shape, name), name)]
        out_f, in_f = _ints(param.shape, name)
        sf_of: tuple[int, ...] = (_cdiv(out_f, block[0]), _cdiv(in_f, block[1])) if block else ()
        made = [StoredTensor(name, "float8_e4m3fn", (out_f, in_f), name),
                StoredTensor(_join(path, "weight_scale_inv"), scale if block else "float32", sf_of, name)]  # fmt: skip
        if static:
            made.append(StoredTensor(_join(path, "activation_scale"), "float32", (), name))
        return made

    return rule, None


def _mxfp4(model: Module, qc: Mapping[str, Any], dtype: str) -> tuple[Rule, str | None]:
    if qc.get("dequantize"):
        return (lambda path, module, param: None), None
    experts = [path for path, m in named_modules(model, expand=False) if m.type == "GptOssExperts"]
    if not experts:
        raise ValueError(
            "quantization_config: mxfp4 — transformers converts gpt-oss's experts only (integrations/mxfp4.py, "
            "replace_with_mxfp4_linear: GptOssMLP); this model has none"
        )
    patterns = list(qc.get("modules_to_not_convert") or [])

    def rule(path: str, module: Module, param: Param) -> list[StoredTensor] | None:
        if module.type != "GptOssExperts" or param.name not in ("gate_up_proj", "down_proj"):
            return None
        if not should_convert(path, patterns):
            return None
        name = _join(path, param.name)
        e, in_f, out_f = _ints(param.shape, name)  # gpt-oss keeps (E, in, out); the checkpoint (E, out, in)
        if in_f % 32:
            raise ValueError(f"mxfp4 stores blocks of 32 values; {name} has {in_f} inputs")
        return [
            StoredTensor(f"{name}_blocks", "uint8", (e, out_f, in_f // 32, 16), name),
            StoredTensor(f"{name}_scales", "uint8", (e, out_f, in_f // 32), name),
        ]

    return rule, None


def _ct_matches(path: str, module: Module, targets: list[str]) -> bool:
    for target in targets:
        if target.startswith("re:"):
            if re.match(target[3:], path):
                return True
        elif target in (module.type, path):
            return True
    return False


def _ct_ignored(path: str, module: Module, ignore: list[str]) -> bool:
    return _ct_matches(path, module, ignore) or any(not i.startswith("re:") and path.endswith("." + i) for i in ignore)


def _compressed(model: Module, qc: Mapping[str, Any], dtype: str) -> tuple[Rule, str | None]:
    fmt = qc.get("format", "dense")
    formats = ("pack-quantized", "int-quantized", "float-quantized", "naive-quantized", "dense")
    if fmt not in formats:
        raise ValueError(f"quantization_config.format {fmt!r}: derive stores compressed-tensors' {', '.join(formats)}")
    if qc.get("sparsity_config"):
        raise ValueError("quantization_config.sparsity_config: compressed-tensors' sparse formats are not derived")
    groups = qc.get("config_groups") or {}
    if not isinstance(groups, Mapping):
        raise ValueError("quantization_config.config_groups must be a mapping of groups")
    ignore = list(qc.get("ignore") or [])
    plans = []
    for key, group in groups.items():
        weights = group.get("weights")
        if not weights:
            continue
        plans.append((list(group.get("targets") or []), weights, group.get("input_activations"), key))

    def rule(path: str, module: Module, param: Param) -> list[StoredTensor] | None:
        if module.type != "Linear" or param.name != "weight" or _ct_ignored(path, module, ignore):
            return None
        plan = next((p for p in plans if _ct_matches(path, module, p[0])), None)
        if plan is None or fmt == "dense":
            return None
        _, weights, inputs, key = plan
        name = _join(path, param.name)
        out_f, in_f = _ints(param.shape, name)
        bits = weights.get("num_bits", 8)
        kind = weights.get("type", "int")
        strategy = weights.get("strategy", "tensor")
        if strategy == "tensor":
            scale: tuple[int, ...] = (1,)
        elif strategy == "channel":
            scale = (out_f, 1)
        elif strategy == "group":
            size = weights.get("group_size")
            if type(size) is not int or size < 1:
                raise ValueError(f"quantization_config.config_groups.{key}.weights.group_size must be a positive int")
            scale = (out_f, _cdiv(in_f, size))
        elif strategy == "block":
            b = weights.get("block_structure")
            if not (isinstance(b, (list, tuple)) and len(b) == 2):
                raise ValueError(
                    f"quantization_config.config_groups.{key}.weights.block_structure must be [rows, cols]"
                )
            scale = (_cdiv(out_f, b[0]), _cdiv(in_f, b[1]))
        else:
            raise ValueError(f"quantization_config.config_groups.{key}.weights.strategy {strategy!r}: not derived")
        symmetric = weights.get("symmetric", True)
        made: list[StoredTensor] = []
        if fmt == "pack-quantized":
            if kind != "int" or bits not in (4, 8):
                raise ValueError(f"pack-quantized packs int weights of 4 or 8 bits; group {key} has {kind} {bits}")
            made.append(StoredTensor(_join(path, "weight_packed"), "int32", (out_f, _cdiv(in_f * bits, 32)), name))
        elif kind == "float":
            if bits != 8:
                raise ValueError(f"float-quantized weights of {bits} bits: derive stores float8 only")
            made.append(StoredTensor(name, "float8_e4m3fn", (out_f, in_f), name))
        else:
            if bits > 8:
                raise ValueError(f"{fmt} weights of {bits} bits: derive stores int8 only")
            made.append(StoredTensor(name, "int8", (out_f, in_f), name))
        made.append(StoredTensor(_join(path, "weight_scale"), dtype, scale, name))
        if not symmetric:
            made.append(StoredTensor(_join(path, "weight_zero_point"), "int8", scale, name))
        if fmt == "pack-quantized":
            made.append(StoredTensor(_join(path, "weight_shape"), "int64", (2,), name))
        if inputs and not inputs.get("dynamic", False):
            made.append(StoredTensor(_join(path, "input_scale"), dtype, (1,), name))
            if not inputs.get("symmetric", True):
                made.append(StoredTensor(_join(path, "input_zero_point"), "int8", (1,), name))
        return made

    return rule, None


_RULES: dict[str, Callable[[Module, Mapping[str, Any], str], tuple[Rule, str | None]]] = {
    "bitsandbytes": _bitsandbytes,
    "gptq": _gptq,
    "awq": _awq,
    "fp8": _fp8,
    "mxfp4": _mxfp4,
    "compressed-tensors": _compressed,
}


def method_of(quantization_config: Any) -> str | None:
    """The ``quant_method`` of a ``quantization_config`` (None for None), checked.

    Parameters
    ----------
    quantization_config : mapping or None

    Returns
    -------
    str or None

    Raises
    ------
    TypeError
        Not a mapping.
    ValueError
        No ``quant_method``, or one derive does not store (named).
    """
    if quantization_config is None:
        return None
    if hasattr(quantization_config, "to_dict"):
        quantization_config = quantization_config.to_dict()
    if not isinstance(quantization_config, Mapping):
        raise TypeError(f"quantization_config must be a mapping, got {type(quantization_config).__name__}")
    method = quantization_config.get("quant_method")
    if method == "compressed_tensors":
        method = "compressed-tensors"
    if method not in METHODS:
        raise ValueError(
            f"quantization_config.quant_method {str(method)[:40]!r} is not one derive stores "
            f"(it stores {', '.join(METHODS)})"
        )
    return method


def stored(model: Module, quantization_config: Any = None, dtype: str = "bfloat16") -> Stored:
    """Every tensor the checkpoint of ``model`` holds for its parameters (see the module docstring).

    Parameters
    ----------
    model : derive.tree.Module
        The model's tree (``derive.explain(config).module``), int sizes.
    quantization_config : mapping or None
        The config's ``quantization_config`` (None: not quantized).
    dtype : str
        The model's dtype: what every tensor not quantized is stored in (``torch_dtype``).

    Returns
    -------
    Stored

    Raises
    ------
    TypeError
        ``quantization_config`` not a mapping.
    ValueError
        An unknown ``quant_method`` or a key of the method derive does not store (named); a symbolic
        size; a repeat too many to list.

    Examples
    --------
    >>> from derive.families.llama import llama
    >>> tiny = llama({"vocab_size": 16, "hidden_size": 64, "intermediate_size": 32, "num_hidden_layers": 1,
    ...               "num_attention_heads": 2, "num_key_value_heads": 1})
    >>> s = stored(tiny, {"quant_method": "fp8", "weight_block_size": [32, 32]}, "bfloat16")
    >>> [(t.name, t.dtype, t.shape) for t in s.tensors][1:3]
    [('model.layers.0.self_attn.q_proj.weight', 'float8_e4m3fn', (64, 64)), ('model.layers.0.self_attn.q_proj.weight_scale_inv', 'float32', (2, 2))]
    """
    method = method_of(quantization_config)
    if method is not None and hasattr(quantization_config, "to_dict"):
        quantization_config = quantization_config.to_dict()
    rule: Rule = lambda path, module, param: None  # noqa: E731
    bound = None
    if method is not None:
        rule, bound = _RULES[method](model, quantization_config, dtype)
    tensors: list[StoredTensor] = []
    converted = 0
    for path, module in named_modules(model):
        if not module.counted:
            continue
        for param in module.params:
            if not param.counted:
                continue
            made = rule(path, module, param)
            if made is None:
                name = _join(path, param.name)
                tensors.append(StoredTensor(name, dtype, _ints(param.shape, name), name))
            else:
                converted += any(t.name.endswith("quant_state.bitsandbytes__nf4") or t.name.endswith(
                    "quant_state.bitsandbytes__fp4") for t in made)  # fmt: skip
                tensors += made
    slack = converted * (OFFSET_TEXT - 3) if bound else 0
    return Stored(tuple(tensors), method, bound, slack)


def listed(model: Module, quantization_config: Any = None, dtype: str = "bfloat16") -> Stored | None:
    """:func:`stored`, or None where the tensors cannot be listed and nothing is quantized (symbolic sizes,
    or too many layers to list: the weights are then the parameters at ``dtype``, :func:`weight_bytes`).

    Parameters
    ----------
    model : derive.tree.Module
    quantization_config : mapping or None
    dtype : str
        The model's dtype.

    Returns
    -------
    Stored or None

    Raises
    ------
    TypeError, ValueError
        As :func:`stored`, with a ``quantization_config``.
    """
    try:
        return stored(model, quantization_config, dtype)
    except ValueError:
        if quantization_config is not None:
            raise
        return None  # symbolic sizes or too many layers to list: weights_bytes is weight_bytes


def weight_bytes(parameters: Any, dtype: str) -> Any:
    """Bytes of ``parameters`` at ``dtype`` (parameters × the dtype's size), quantized or not.

    Parameters
    ----------
    parameters : int or sympy.Expr
    dtype : str
        A name of :data:`derive.analysis.figures.DTYPE_BYTES`.

    Returns
    -------
    int or sympy.Expr
        Units: bytes.
    """
    return plain(parameters * DTYPE_BYTES[dtype])
