"""The committed verification record (``docs_src/verification.json``): what the tests checked
each framework, each library of the blocks and each kind of memory question against. The site says
"checked against ..." from this record only, so the built site is the same on every machine, whatever is
installed there.

The frameworks are :data:`derive.frameworks.FRAMEWORKS`; the libraries the blocks
(:mod:`derive.blocks`) are held against, or cite, are :data:`LIBRARIES` (recorded under
``"blocks"``). A live test names either by its key when it counts a case
(``tests/support/live_record.py``); :func:`verified` finds which.

The memory questions of ``derive --cost`` (:mod:`derive.analysis.cost`) are :data:`MEMORY` (recorded under
``"memory"``): weights as stored (per quantization method), caches as served (per format family of the keys and
values and of the states), what fits (``--memory``) and one GPU's share (``--tp``, ``--ep``); a live test counts a
case with ``live_record.checked_memory(kind, method)``, and :func:`write_run` writes each kind's cases, the
classes they were compared with and the packages' versions; a method no case runs here is "cited" (its files and
lines).
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from derive.frameworks.registry import Framework

RECORD = Path(__file__).resolve().parent / "verification.json"


@dataclass(frozen=True)
class Library:
    """A library the blocks are held against live (``packages``), or cite (``source``).

    Attributes
    ----------
    key : str
        The key the live tests record under (a constructor framework of
        :mod:`derive.engine.constructors`: ``"transformers"``, ``"mamba_ssm"``, ``"fla"``).
    title : str
        For the site's table.
    packages : tuple of str
        The distributions whose installed versions the record names (empty: cited).
    environment : str
        ``""`` for the test environment, else the checkout's ``.venv-<environment>`` (``"ssm"``).
    models : tuple of str
        The ``model_type`` of :data:`derive.blocks.CONFIG_MODELS` it builds (their architectures
        are classes it may record, with its registered constructors).
    source : str
        A cited library's files and lines.
    mixers : tuple of str
        Its mixer classes that derive builds alone and the live tests hold one by one (transformers' hybrid
        mixers: ``tests/blocks/test_hybrid_mixers.py``).
    """

    key: str
    title: str
    packages: tuple[str, ...] = ()
    environment: str = ""
    models: tuple[str, ...] = ()
    source: str = ""
    mixers: tuple[str, ...] = ()

    def classes(self) -> set[str]:
        """The class names recorded under it: its registered constructors, its models' architectures and its
        mixers."""
        import derive.blocks
        from derive.engine.constructors import CONSTRUCTORS

        return (
            {name for fw, name in CONSTRUCTORS if fw == self.key}
            | {derive.blocks.CONFIG_MODELS[m].architecture for m in self.models}
            | set(self.mixers)
        )


def _sources(*texts: str) -> str:
    return "; ".join(dict.fromkeys(texts))


def _libraries() -> dict[str, Library]:
    import derive.families  # noqa: F401  (registers every language-model family's config reader)
    from derive.blocks import (
        CONFIG_MODELS,
        griffin,
        rwkv,
        rwkv6,
        rwkv7,
    )  # importing derive.blocks registers every block
    from derive.engine.constructors import CONSTRUCTORS

    def cited(key: str) -> str:
        return _sources(*(c.source for (fw, _), c in CONSTRUCTORS.items() if fw == key))

    found = [
        Library("mamba_ssm", "mamba_ssm (Mamba, Mamba-2)", ("mamba-ssm",), "ssm", models=("mamba_ssm",)),
        Library("fla", "flash-linear-attention (RWKV-6/7, GLA, RetNet, HGRN, DeltaNet)",
                ("flash-linear-attention", "fla-core"), "ssm", models=("rwkv6", "rwkv7")),
        Library("s4", "S4D and S4 (state-spaces/s4)", source=cited("s4")),
        Library("s5", "S5 (lindermanlab/S5)", source=cited("s5")),
        Library("lru", "LRU (NicolasZucchet/minimal-LRU)", source=cited("lru")),
        Library("rwkv_blinkdl", "RWKV-4/5/6/7 (BlinkDL/RWKV-LM)",
                source=_sources(*(m.SOURCE["blinkdl"] for m in (rwkv, rwkv6, rwkv7)))),
        Library("recurrentgemma", "Griffin / RecurrentGemma (google-deepmind/recurrentgemma)",
                source=griffin.SOURCE["deepmind"]),
    ]  # fmt: skip
    # every model type derive reads from a config is transformers' but those the libraries above claim
    claimed = {m for library in found for m in library.models}
    # the hybrid mixers in transformers' spellings, as derive's blocks name them
    from derive.blocks import gated_deltanet, kda, short_conv

    mixers = (
        *(cls for cls, _ in gated_deltanet.SPELLINGS.values()),
        *short_conv.SPELLINGS.values(),
        *(f"{prefix}DeltaAttention" for prefix in kda.SPELLINGS.values()),
        "MiniMaxLightningAttention",
    )
    transformers = Library("transformers",
                           "transformers (Mamba, FalconMamba, Mamba-2, RWKV-4, RecurrentGemma and the language models)",
                           ("transformers",), models=tuple(sorted(set(CONFIG_MODELS) - claimed)),
                           mixers=tuple(sorted(mixers)))  # fmt: skip
    return {library.key: library for library in [transformers, *found]}


#: The libraries of the blocks, by key: live ones with packages, cited ones with their source.
LIBRARIES: dict[str, Library] = _libraries()


def verified(key: str) -> tuple[str, Framework | Library]:
    """Where ``key`` is recorded (``"frameworks"`` or ``"blocks"``) and what it is.

    Raises
    ------
    KeyError
        Neither a framework nor a library of the blocks.
    """
    from derive.frameworks import FRAMEWORKS

    if key in FRAMEWORKS:
        return "frameworks", FRAMEWORKS[key]
    if key in LIBRARIES and LIBRARIES[key].packages:
        return "blocks", LIBRARIES[key]
    raise KeyError(f"{key!r} is neither a framework nor a live library of the blocks (docs_src/record.py)")


def load() -> dict:
    """The record: ``{"frameworks": {key: {"packages": {distribution: version}, ...}}, "blocks": {...},
    "memory": {kind: {"cases": n, "date": ..., "methods": {method: {"cases": n, "packages": {...}} or {"cited": ...}}}}}``."""
    return json.loads(RECORD.read_text(encoding="utf-8"))


def status(held: Framework | Library) -> str:
    """``"checked against <package> <version> [and ...]"`` from the record, else ``"from source: <files>"``.

    Parameters
    ----------
    held : derive.frameworks.registry.Framework or Library
    """
    part = "blocks" if isinstance(held, Library) else "frameworks"
    entry = load().get(part, {}).get(held.key)
    if not entry:
        return f"from source: {held.source}"
    return "checked against " + " and ".join(f"{p} {v}" for p, v in sorted(entry["packages"].items()))


def package_version(package: str, environment: str = "") -> str:
    """The installed version of ``package``: in this environment, or in ``.venv-<environment>`` of
    the checkout (MXNet's, see :attr:`derive.frameworks.registry.Framework.environment`).

    Raises
    ------
    importlib.metadata.PackageNotFoundError, subprocess.CalledProcessError
        Not installed there.
    """
    if not environment:
        return importlib.metadata.version(package)
    python = RECORD.parents[1] / f".venv-{environment}" / "bin" / "python"
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def write_cases(cases: Mapping[tuple[str, str], int], today: str | None = None) -> None:
    """Write the live cases of a test run into the record (``DERIVE_UPDATE_RECORD=1``): :func:`write_run` with
    no memory question."""
    write_run(cases, (), today)


def write_run(
    cases: Mapping[tuple[str, str], int], memory: Iterable[MemoryCase] = (), today: str | None = None
) -> None:
    """Write the live cases of a test run into the record, at once (``DERIVE_UPDATE_RECORD=1``: the end of
    the run, ``tests/conftest.py``); nothing is written if any of them is refused.

    For each framework or library of the blocks with cases (:func:`verified`): its installed
    package versions (read in its own environment), each class with the number of cases compared
    in the run (classes not exercised by the run keep their earlier entry), the total, and the
    date of the run (UTC). Each memory kind with cases is written whole (kinds without keep their
    earlier entry): its cases, the date, and per method of :data:`MEMORY` the cases that held it,
    the classes they were compared with and the packages' versions (reported by the case, else
    read in the method's environment); a method with no case that has a source is written
    ``{"cited": source}``; one with neither is left out.

    Parameters
    ----------
    cases : mapping of (key, class name) -> int
        From ``tests/support/live_record.py``; a key of :data:`derive.frameworks.FRAMEWORKS` or
        of :data:`LIBRARIES`.
    memory : iterable of MemoryCase
        The memory questions' cases (``live_record.MEMORY``).
    today : str or None
        ISO date; None for today's (UTC).

    Raises
    ------
    KeyError
        A key that is neither; a memory kind or method not in :data:`MEMORY`.
    ValueError
        Cases of one method that report different versions, or packages other than the method's.
    """
    data = load()
    today = today or datetime.datetime.now(datetime.UTC).date().isoformat()
    for key in sorted({k for k, _ in cases}):
        part, held = verified(key)
        entry = data.setdefault(part, {}).setdefault(key, {})
        entry["packages"] = {p: package_version(p, held.environment) for p in sorted(held.packages)}
        cells = dict(entry.get("cells", {}))
        cells.update({cell: n for (k, cell), n in cases.items() if k == key})
        entry["cells"] = dict(sorted(cells.items()))
        entry["cases"] = sum(entry["cells"].values())
        entry["date"] = today
    for part in ("frameworks", "blocks"):
        if part in data:
            data[part] = dict(sorted(data[part].items()))
    memory = list(memory)
    if memory:
        data["memory"] = _memory(data.get("memory", {}), memory, today)
    RECORD.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def rows() -> list[dict]:
    """The site's "verified against" table: one row per framework, from the record only.

    Returns
    -------
    list of dict
        ``framework``, ``title``, ``status`` (``"live"`` or ``"cited"``), ``packages`` (text),
        ``cells`` (``{class: cases}``), ``cases``, ``date``; a cited framework's ``packages`` is
        its source files (with lines) instead.
    """
    from derive.frameworks import FRAMEWORKS

    return _rows(FRAMEWORKS, load()["frameworks"])


def block_rows() -> list[dict]:
    """The site's table of what the blocks were held against: one row per library of :data:`LIBRARIES`.

    Returns
    -------
    list of dict
        As :func:`rows` (``framework`` is the library's key): "live" with the versions, classes
        and cases of the record's ``"blocks"``; "cited" with ``packages`` the files and lines.
    """
    return _rows(LIBRARIES, load().get("blocks", {}))


def _rows(registry: Mapping[str, Framework | Library], data: Mapping[str, dict]) -> list[dict]:
    out = []
    for key, held in registry.items():
        entry = data.get(key)
        live = {
            "status": "live",
            "packages": ", ".join(f"{p} {v}" for p, v in sorted(entry["packages"].items())) if entry else "",
            "cells": entry.get("cells", {}) if entry else {},
            "cases": entry.get("cases", 0) if entry else 0,
            "date": entry.get("date", "") if entry else "",
        }
        cited = {"status": "cited", "packages": held.source, "cells": {}, "cases": 0, "date": ""}
        out.append({"framework": key, "title": held.title, **(live if entry else cited)})
    return out


# --- the memory questions ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Method:
    """One way a kind of memory question is held: a quantization method, a served cache's format family, ...

    Attributes
    ----------
    key : str
        What the live tests record its cases under (``live_record.checked_memory(kind, key)``).
    title : str
        For the site's table.
    against : str
        What a case is compared with, in words (the real object, read by the test).
    packages : tuple of str
        The distributions whose versions the record names for it.
    environment : str
        Where those packages are installed: ``""`` for the test environment, else the checkout's
        ``.venv-<environment>`` (``"quant"``: the quantizers' worker, ``DERIVE_QUANT_PYTHON``).
    source : str
        Where no case of it runs here, the files and lines it is cited from (the record says "cited").
    """

    key: str
    title: str
    against: str
    packages: tuple[str, ...] = ("torch", "transformers")
    environment: str = ""
    source: str = ""


@dataclass(frozen=True)
class Kind:
    """A kind of memory question (the record's ``"memory"``, one entry each).

    Attributes
    ----------
    key : str
        The record's key (``"stored"``, ``"served"``, ``"fits"``, ``"share"``).
    title : str
        For the site's table ("weights as stored").
    question : str
        The options of ``derive --cost`` (and ``derive.cost``) it answers.
    tests : tuple of str
        The test files whose live cases it counts.
    methods : tuple of Method
    """

    key: str
    title: str
    question: str
    tests: tuple[str, ...]
    methods: tuple[Method, ...]

    def method(self, key: str) -> Method:
        """Its method ``key``.

        Raises
        ------
        KeyError
            Not one of its methods.
        """
        for method in self.methods:
            if method.key == key:
                return method
        raise KeyError(f"{key!r} is no method of the memory kind {self.key!r}: one of {[m.key for m in self.methods]}")


#: A served cache's element formats by family (:data:`derive.analysis.served.FORMATS` and ``BLOCKS``):
#: family key -> title.
SERVED_FAMILIES = {
    "as-held": "as transformers holds them",
    "float": "16- and 32-bit floats (float32, float16, bfloat16)",
    "float8": "float8 (float8_e4m3fn, float8_e5m2)",
    "int8": "int8",
    "ggml": "ggml's blocks (q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl)",
}

_FORWARD = "transformers' cache after a forward on the CPU: its tensors' element counts times the format's size"
_QUANT_META = (
    "transformers' quantizer replacing the modules of a meta build (pre_quantized): its state_dict, tensor by tensor"
)
_BNB = ("the checkpoint transformers' quantizer writes with bitsandbytes on the CPU: its safetensors header and "
        "state_dict, tensor by tensor")  # fmt: skip
_GPTQMODEL = "GPTQModel 7.7.0 gptqmodel/nn_modules/qlinear/__init__.py"
_SKIPS = "held by shapes worked by hand from those lines (gptqmodel 7.7.0 needs torch >= 2.14.1)"
_TP = ("transformers' tensor parallelism (tp_plan: prepare_distribute_model, maybe_distribute_model) run with "
       "torch.distributed gloo on the CPU: each rank's DTensor.to_local() shapes, its bytes and its cache after a forward")  # fmt: skip

#: The memory questions' kinds, by key, each with its methods (the record's ``"memory"``).
MEMORY: dict[str, Kind] = {
    kind.key: kind
    for kind in (
        Kind("stored", "weights as stored",
             "`--cost` with a `quantization_config`: each tensor a checkpoint stores, its dtype and shape",
             ("tests/analysis/test_stored.py",),
             (Method("fp8", "fine-grained FP8", _QUANT_META, environment="quant"),
              Method("bnb-4bit", "bitsandbytes 4-bit (NF4, FP4, double quantization)", _BNB,
                     ("bitsandbytes", "torch", "transformers"), "quant"),
              Method("bnb-8bit", "bitsandbytes 8-bit (LLM.int8())", _BNB, ("bitsandbytes", "torch", "transformers"),
                     "quant"),
              Method("compressed-tensors", "compressed-tensors (pack-, int- and float-quantized)", _QUANT_META,
                     ("compressed-tensors", "torch", "transformers"), "quant"),
              Method("mxfp4", "MXFP4 (gpt-oss's experts)",
                     "transformers' own dequantizer (integrations/mxfp4.py) turning the blocks and scales, under "
                     "Mxfp4HfQuantizer.serialized_names, into the live gpt-oss experts' shapes"),
              Method("gptq", "GPTQ", _QUANT_META, ("gptqmodel", "optimum", "torch", "transformers"), "quant",
                     f"{_GPTQMODEL} 922-958 (_register_gptq_buffers), {_SKIPS}"),
              Method("awq", "AWQ (GEMM)", _QUANT_META, ("gptqmodel", "torch", "transformers"), "quant",
                     f"{_GPTQMODEL} 1769-1790 (AWQuantLinear.__init__), {_SKIPS}"))),
        Kind("served", "caches as served",
             "`--kv-dtype` and `--state-dtype`: the keys and values, and the recurrent states, in a serving engine's format",
             ("tests/analysis/test_served.py",),
             tuple(Method(f"{part}-{family}", f"{what}: {title}", _FORWARD)
                   for part, what in (("kv", "keys and values"), ("state", "states"))
                   for family, title in SERVED_FAMILIES.items())),
        Kind("fits", "what fits",
             "`--memory`: the longest context and the largest batch a budget holds, exact at T and T + 1",
             ("tests/analysis/test_served.py", "tests/analysis/test_fit_windows.py"),
             (Method("context-and-batch", "the largest context and batch (attention, Mamba, Gated DeltaNet, short "
                     "convolutions)", f"the weights and {_FORWARD}, at T and T + 1 tokens, at 3 and 4 sequences"),
              Method("any-length", "any length (every layer a sliding window)",
                     "the forward's cache, the same at 3 and at 50 tokens"),
              Method("sliding-window", "sliding windows beside full attention (gpt-oss, Gemma 3)",
                     "the forward's cache below, at and past the window, at T and T + 1 tokens"),
              Method("fp8-weights", "with the weights stored in fine-grained FP8",
                     "the bytes of transformers' quantizer's meta build and the forward's cache"))),
        Kind("share", "one GPU's share",
             "`--tp`, `--ep` and `--pp`: one device's weights and cache", ("tests/analysis/test_parallel.py",),
             (Method("tp2", "tensor parallel, 2 ranks", _TP),
              Method("tp4", "tensor parallel, 4 ranks", _TP),
              Method("ep2", "expert parallel, 2 ranks (the attention tensor parallel)", _TP),
              Method("vllm", "vLLM's own rules: the vocabulary padded, KV heads replicated, pipeline stages, the "
                     "Mamba-2, Gated DeltaNet, KDA and short-convolution mixers, Zamba2's shared block, the indexer",
                     "", (),
                     source="vLLM's files cited by line in derive/analysis/parallel.py (vocab_parallel_embedding.py "
                     "16-22, linear.py, mamba_mixer2.py, mamba_utils.py, qwen_gdn_linear_attn.py, kimi_gdn_linear_attn.py, "
                     "short_conv.py, zamba2.py, deepseek_v2.py; get_pp_indices in distributed/utils.py), held by "
                     "shapes worked by hand in tests/analysis/test_parallel.py"))),
    )
}  # fmt: skip


def memory_method(kind: str, method: str) -> Method:
    """The method ``method`` of the memory kind ``kind`` (:data:`MEMORY`).

    Raises
    ------
    KeyError
        No such kind, or no such method of it.
    """
    if kind not in MEMORY:
        raise KeyError(f"{kind!r} is no memory kind of the record: one of {list(MEMORY)} (docs_src/record.py)")
    return MEMORY[kind].method(method)


def served_method(part: str, fmt: str | None) -> str:
    """The method of the kind ``"served"`` a case holds: ``part`` (``"kv"`` or ``"state"``) in ``fmt``.

    Parameters
    ----------
    part : {"kv", "state"}
    fmt : str or None
        A served format as :func:`derive.analysis.served.served_format` names it; None: as transformers holds it.

    Returns
    -------
    str
        ``"kv-ggml"``, ``"state-float8"``, ... (its family: :data:`SERVED_FAMILIES`).

    Raises
    ------
    ValueError
        A part or format of no family.
    """
    from derive.analysis.served import BLOCKS, FORMATS

    if part not in ("kv", "state"):
        raise ValueError(f"part must be 'kv' or 'state', not {part!r}")
    if fmt is None:
        family = "as-held"
    elif fmt in BLOCKS:
        family = "ggml"
    elif fmt.startswith("float8"):
        family = "float8"
    elif fmt == "int8":
        family = "int8"
    elif fmt in FORMATS and fmt.startswith(("float", "bfloat")):
        family = "float"
    else:
        raise ValueError(f"{fmt!r} is no served format of derive.analysis.served")
    return f"{part}-{family}"


class MemoryCase(NamedTuple):
    """One live case of a memory question (``tests/support/live_record.py``'s ``checked_memory``).

    Attributes
    ----------
    kind : str
        A key of :data:`MEMORY`.
    methods : tuple of str
        The kind's methods the case held (a served cache's case: its keys' and values' format and, where the model
        holds one, its states').
    against : str or None
        The real object's class (or function) it was compared with, as the test read it (a quantizer's class).
    versions : tuple of (str, str)
        The packages' versions the comparison ran with, where it ran in another process (the quantizers' worker
        reports them); empty: the test environment's, read when the record is written.
    """

    kind: str
    methods: tuple[str, ...]
    against: str | None = None
    versions: tuple[tuple[str, str], ...] = ()


def _memory(earlier: Mapping[str, dict], cases: list[MemoryCase], today: str) -> dict[str, dict]:
    """The record's ``"memory"`` with the kinds of ``cases`` written whole (:func:`write_run`)."""
    for case in cases:
        for key in case.methods:
            memory_method(case.kind, key)
    memory = dict(earlier)
    for kind in MEMORY.values():
        mine = [case for case in cases if case.kind == kind.key]
        if not mine:
            continue
        methods: dict[str, dict] = {}
        for method in kind.methods:
            held = [case for case in mine if method.key in case.methods]
            if held:
                named = sorted({case.against for case in held if case.against})
                entry: dict = {"cases": len(held), **({"against": named} if named else {})}
                methods[method.key] = {**entry, "packages": _memory_versions(kind.key, method, held)}
            elif method.source:
                methods[method.key] = {"cited": method.source}
        memory[kind.key] = {"cases": len(mine), "date": today, "methods": methods}
    return {key: memory[key] for key in MEMORY if key in memory}


def _memory_versions(kind: str, method: Method, held: list[MemoryCase]) -> dict[str, str]:
    reported = {case.versions for case in held}
    if reported == {()}:
        return {p: package_version(p, method.environment) for p in sorted(method.packages)}
    if len(reported) != 1 or () in reported:
        raise ValueError(f"the cases of {kind}/{method.key} report different versions: {sorted(reported)}")
    versions = dict(reported.pop())
    if set(versions) != set(method.packages):
        raise ValueError(f"{kind}/{method.key} reports {sorted(versions)}, not its packages {sorted(method.packages)}")
    return dict(sorted(versions.items()))


def memory_rows() -> list[dict]:
    """The site's table of the memory questions, from the record's ``"memory"`` only: one entry per kind of
    :data:`MEMORY`.

    Returns
    -------
    list of dict
        ``kind``, ``title``, ``question``, ``tests``, ``cases``, ``date`` (0 and ``""`` if the record has none),
        ``methods``: per method in the record, ``method``, ``title``, ``status`` (``"live"`` or ``"cited"``),
        ``against`` (what it is held against, with the classes the cases named; empty for a cited one),
        ``packages`` (the versions, or the source cited) and ``cases``.
    """
    data = load().get("memory", {})
    out = []
    for kind in MEMORY.values():
        entry = data.get(kind.key, {})
        methods = []
        for key, held in entry.get("methods", {}).items():
            method = kind.method(key)
            if "cited" in held:
                row = {"status": "cited", "against": "", "packages": held["cited"], "cases": 0}
            else:
                named = ", ".join(held.get("against", []))
                row = {"status": "live", "against": method.against + (f" ({named})" if named else ""),
                       "packages": ", ".join(f"{p} {v}" for p, v in held["packages"].items()), "cases": held["cases"]}  # fmt: skip
            methods.append({"method": key, "title": method.title, **row})
        out.append({"kind": kind.key, "title": kind.title, "question": kind.question, "tests": kind.tests,
                    "cases": entry.get("cases", 0), "date": entry.get("date", ""), "methods": methods})  # fmt: skip
    return out
