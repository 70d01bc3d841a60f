"""The sections' own pages (``cells/index.md``, ``blocks/index.md`` ...): what each section holds.

Material's ``navigation.indexes`` makes a section's ``index.md`` the page its title opens, so every
section address (``/cells/``, ``/blocks/`` ...) is a page. Each lists the section's pages as the page
registry has them (:func:`docs_src.site.pages`, so a new page is listed with no edit here), with one
line on what the page answers: for cells and frameworks taken from derive's own registries
(:data:`derive.cells.CELLS`, :data:`derive.frameworks.FRAMEWORKS`), for the other sections from
:data:`ABOUT`. The home page's cell table is :func:`cell_rows` too.
"""

from __future__ import annotations

import derive.frameworks as fx
from derive.cells import CELLS

from ..site import Page, pages
from .cells import CELL_PAGES, HAND_WRITTEN, generic_path

__all__ = ["SECTIONS", "ABOUT", "section_rows", "cell_rows", "section_context"]

#: Section -> (its address, what it answers). The order is the navigation's.
SECTIONS = {
    "Questions": (
        "questions/index.md",
        "The parameter counts people ask about, answered with the framework's own numbers: the question as "
        "it was asked, a short answer, the numbers, the formula, the shapes.",
    ),
    "Cells": (
        "cells/index.md",
        "One page per recurrent cell: its update equations, its tensors with their shapes, the closed form of "
        "its parameter count, and every framework class that implements it, with that class's count.",
    ),
    "Blocks": (
        "blocks/index.md",
        "The modern recurrent blocks and the language models built from them: every tensor with its shape, "
        "in symbols and in worked numbers (a released model's layer where there is one), checked against "
        "the reference code.",
    ),
    "Language models": (
        "language-models/index.md",
        "Whole language models from their `config.json`: hybrids of attention, recurrent mixers and experts, "
        "and the plain Transformers beside them — where the parameters sit, how many a token uses, and what "
        "a sequence costs to keep (a recurrent state against a cache of keys and values), checked against "
        "transformers.",
    ),
    "Frameworks": (
        "frameworks/index.md",
        "How each framework lays out the same cells: its classes, its tensor names and bias layout, and each "
        "class's count, checked against the framework itself. PyTorch's `torch.nn` classes are on the cells' "
        "pages.",
    ),
    "Whole models": (
        "models/index.md",
        "Counting a whole model — from its code, a live object, a checkpoint or a `config.json` — and reading "
        "a failed `load_state_dict` back to the constructor arguments.",
    ),
    "Tools": (
        "tools/index.md",
        "Ways to get the numbers: a calculator in the page, the command line, a notebook, the cost model, and "
        "how fast derive answers.",
    ),
}

#: What a page answers, one line, for the sections whose pages derive's registries do not describe.
ABOUT = {
    "language-models/jamba.md": "Mamba layers, one attention layer in eight, experts in every other layer.",
    "language-models/qwen3-next.md": "Gated DeltaNet and gated attention, 3 to 1, with many small experts; "
    "Qwen4-Exp's indexer and hyper-connections.",
    "language-models/lfm2.md": "Gated short convolutions and grouped-query attention; LFM2-MoE's experts, "
    "LFM3's sliding windows.",
    "language-models/xlstm.md": "mLSTM blocks only: a cache constant in the sequence's length.",
    "language-models/bamba.md": "Mamba-2 layers with attention at three places.",
    "language-models/nemotron-h.md": "Mamba-2, attention and MLP layers spelled out in a pattern string.",
    "language-models/zamba2.md": "Mamba-2 with shared transformer blocks invoked again, each call with LoRA adapters; "
    "Zamba's one shared block.",
    "language-models/falcon-h1.md": "Attention and Mamba-2 side by side in every layer.",
    "language-models/granite-4-hybrid.md": "Mamba-2 and attention, 9 to 1, experts and a shared MLP in every layer.",
    "language-models/kimi-linear.md": "Kimi Delta Attention and latent attention, 3 to 1, with DeepSeek-style experts.",
    "language-models/minimax.md": "Lightning attention and softmax attention, 7 to 1, experts in every layer.",
    "language-models/olmo-hybrid.md": "Gated DeltaNet and attention, 3 to 1, with a dense MLP.",
    "language-models/transformers.md": "Llama, Mistral, Mixtral, GPT-2: the KV cache that grows with every token.",
    "language-models/memory.md": "The cache a sequence keeps against its length, for released models, plotted.",
    "language-models/released.md": "Every released config derive ships, one row each: total, active, KV bytes per "
    "token, state per sequence, and whether weights and cache fit 24, 48 or 80 GiB.",
    "questions/asked.md": "Real questions about a recurrent model's size, pasted as the asker had them (a "
    "constructor line, code, a `config.json`) and answered by the command line.",
    "questions/bidirectional-more-than-twice.md": "Layer 1 of a bidirectional stack reads both directions of "
    "layer 0: its input weights are twice as wide.",
    "questions/keras-bidirectional-half.md": "Two LSTMs of 128 units against one of 256: the recurrent weights "
    "grow with the square of the width.",
    "questions/what-layer-2-sees.md": "Each direction of a layer above the first reads both "
    "directions of the layer below, at the same time step.",
    "questions/lstm-units-per-layer.md": "`units` and `hidden_size` are one number: what one layer "
    "and direction owns, and how the count grows with the layers.",
    "blocks/mamba.md": "Mamba's selective SSM mixer (mamba_ssm, transformers' MambaForCausalLM): nine tensors.",
    "blocks/mamba2.md": "Mamba-2's state-space-dual mixer: one input projection, heads, a gated RMSNorm.",
    "blocks/rwkv.md": "RWKV-4 to RWKV-7: time mix and channel mix, transformers' and the reference code's.",
    "blocks/griffin.md": "Griffin and RecurrentGemma: the RG-LRU recurrent block beside local attention.",
    "blocks/s4.md": "S4 and S4D from state-spaces/s4: the kernel's tensors, real and complex.",
    "blocks/s5.md": "S5 from lindermanlab/S5: one multi-input, multi-output diagonal SSM.",
    "blocks/lru.md": "The Linear Recurrent Unit of Orvieto et al., from its authors' code.",
    "blocks/fla.md": "flash-linear-attention's layers: GLA, RetNet, HGRN, HGRN2, DeltaNet.",
    "models/whole-models.md": "Whole Keras and PyTorch models, layer by layer, read from their code.",
    "models/checkpoints.md": "A checkpoint's tensors read back to the constructor, and what a size mismatch means.",
    "tools/notebook.md": "derive in a Jupyter notebook: counts, shapes and formulas as rich tables.",
    "tools/cli.md": "`derive` on the command line: a layer, a model file, a checkpoint; text or JSON.",
    "tools/cost.md": "Multiply-accumulates, FLOPs and memory of a recurrent stack per time step.",
    "tools/calculator.md": "Type the sizes, read the count: every framework's classes and the blocks, in your browser.",
    "tools/benchmark.md": "How long derive takes to answer, against building the model in the framework.",
    "frameworks/keras.md": "Keras 3's recurrent layers and Bidirectional, layer by layer, against torch.nn.",
    "frameworks/comparison.md": "The same stack counted in every framework: where the bias vectors differ.",
}


def _cell_modes() -> dict[str, list[str]]:
    """Cells page -> the registered cell modes it describes (the Elman RNN's page: tanh and ReLU)."""
    found: dict[str, list[str]] = {}
    for mode in CELLS:
        found.setdefault(HAND_WRITTEN.get(mode) or generic_path(mode), []).append(mode)
    return found


def _classes(mode: str) -> list[str]:
    """Every framework class of the cell ``mode`` (``torch.nn`` first for PyTorch's cells)."""
    torch = [f"nn.{p.cls}" for p in CELL_PAGES if HAND_WRITTEN.get(mode) == p.path and not p.symbolic_kwargs]
    return torch + [f"{fw.title}: {s.name}" for fw in fx.FRAMEWORKS.values() for s in fw.cells if s.mode == mode]


def cell_rows() -> list[dict]:
    """One row per page of the Cells section (all of them, as the page registry lists them).

    Returns
    -------
    list of dict
        ``title``, ``path`` (docs-relative), ``about`` (the source paper, or the page's summary) and
        ``classes`` (the number of framework classes that implement the cell).
    """
    modes = _cell_modes()
    summaries = {p.path: p for p in CELL_PAGES}
    rows = []
    for page in pages():
        if page.section != "Cells" or page.path.endswith("/index.md"):
            continue
        found = modes.get(page.path, [])
        hand = summaries.get(page.path)
        if hand is not None and hand.symbolic_kwargs:  # the LSTM with proj_size: torch.nn's alone
            about, classes = hand.summary, 1
        else:
            about = hand.summary if hand else CELLS[found[0]].source.split(";")[0] if found else ""
            classes = len({c for mode in found for c in _classes(mode)})
        rows.append({"title": page.title, "path": page.path, "about": about, "classes": classes})
    return rows


def section_rows(section: str) -> list[dict]:
    """The pages of ``section`` (but its own page): ``title``, ``path`` and ``about`` (one line or "")."""
    if section == "Cells":
        return cell_rows()
    frameworks = {f"frameworks/{key.replace('.', '-')}.md": fw for key, fw in fx.FRAMEWORKS.items()}
    rows = []
    for page in pages():
        if page.section != section or page.path.endswith("/index.md"):
            continue
        about = ABOUT.get(page.path, "")
        fw = frameworks.get(page.path)
        if not about and fw is not None:
            about = ", ".join(f"`{s.name}`" for s in fw.cells)
        rows.append({"title": page.title, "path": page.path, "about": about})
    return rows


def section_context(section: str) -> dict:
    """The template variables of a section's page."""
    path, intro = SECTIONS[section]
    rows = section_rows(section)
    for row in rows:  # links relative to the section's page
        row["link"] = row["path"].removeprefix(path.rsplit("/", 1)[0] + "/")
    return {"section": section, "intro": intro, "rows": rows}


ORDER = 1
PAGES = [
    Page(path, section, "section.md.j2", (lambda section=section: section_context(section)), (), section)
    for section, (path, _) in SECTIONS.items()
]
