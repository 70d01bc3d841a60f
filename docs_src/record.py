"""The committed verification record (``docs_src/verification.json``): what the tests checked
each framework, and each library of the blocks, against. The site says "checked against ..." from
this record only, so the built site is the same on every machine, whatever is installed there.

The frameworks are :data:`derive.frameworks.FRAMEWORKS`; the libraries the blocks
(:mod:`derive.blocks`) are held against, or cite, are :data:`LIBRARIES` (recorded under
``"blocks"``). A live test names either by its key when it counts a case
(``tests/support/live_record.py``); :func:`verified` finds which.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

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
    """The record: ``{"frameworks": {key: {"packages": {distribution: version}, ...}}, "blocks": {...}}``."""
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
    """Write the live cases of a test run into the record (``DERIVE_UPDATE_RECORD=1``).

    For each framework or library of the blocks with cases (:func:`verified`): its installed
    package versions (read in its own environment), each class with the number of cases compared
    in the run (classes not exercised by the run keep their earlier entry), the total, and the
    date of the run (UTC).

    Parameters
    ----------
    cases : mapping of (key, class name) -> int
        From ``tests/support/live_record.py``; a key of :data:`derive.frameworks.FRAMEWORKS` or
        of :data:`LIBRARIES`.
    today : str or None
        ISO date; None for today's (UTC).

    Raises
    ------
    KeyError
        A key that is neither.
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
