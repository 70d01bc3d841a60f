"""The block pages' worked numbers (docs_src/pages/worked.py): one layer's tensors at a released
model's sizes, held against the model transformers builds from the same config (meta device)."""

from __future__ import annotations

import math
import re

import pytest

from docs_src.pages.worked import WORKED, worked
from docs_src.site import pages as registry

BLOCK_PAGES = [p.path for p in registry() if p.section == "Blocks" and not p.path.endswith("/index.md")]
#: Block pages without a released model in transformers: S4, S5 and the LRU list their reference code's
#: defaults tensor by tensor (:data:`docs_src.pages.ssm_blocks.WORKED`, held against it below); the fla
#: page gives every tensor at the layer's defaults (held against fla in tests/blocks/test_ssm_pages.py).
REFERENCE = {"blocks/s4.md": "s4", "blocks/s5.md": "s5", "blocks/lru.md": "lru"}
ELSEWHERE = {"blocks/fla.md"}


def _shape(text: str) -> tuple[int, ...]:
    return tuple(int(d) for d in re.findall(r"\d+", text))


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def test_every_block_page_has_a_worked_number() -> None:
    assert set(BLOCK_PAGES) == set(WORKED) | set(REFERENCE) | ELSEWHERE


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(WORKED))
def test_worked_tensors_are_transformers_own(path: str) -> None:
    import hf_live

    w, shown = WORKED[path], worked(path)
    config = {k: v for k, v in w.config.items() if k != "model_type"}
    model = hf_live.build(w.config["model_type"], config)
    real = [(name, shape) for name, shape in hf_live.tensors(model) if name.startswith(w.prefix)]
    ours = [(w.prefix + r["name"], _shape(r["shape"])) for r in shown["rows"]]
    assert ours == real  # names, shapes and order, as named_parameters() lists them
    sizes = dict(hf_live.tensors(model))
    for r in shown["rows"]:
        n = 1
        for d in sizes[w.prefix + r["name"]]:
            n *= d
        assert _number(r["count"]) == n
    assert _number(shown["layer"]) == hf_live.under(model, w.prefix.rstrip("."))
    assert _number(shown["total"]) == hf_live.total(model)


def test_mamba_130m_has_the_nine_tensors_at_768(rendered_pages) -> None:
    """One Mamba layer at mamba-130m's width: the mixer's nine tensors and the layer's RMSNorm (as Mamba-2's
    worked layer shows its norm and mixer)."""
    text = rendered_pages["blocks/mamba.md"]
    section = text[text.index("### At mamba-130m's sizes: d_model = 768") : text.index("### State per sequence")]
    rows = re.findall(r"^\| `([\w.]+)` \| `\(([\d, ]+),?\)` \| ([\d,]+) \|$", section, re.M)
    assert len(rows) == 10
    assert {name for name, _, _ in rows} == {
        "norm.weight", "mixer.in_proj.weight", "mixer.conv1d.weight", "mixer.conv1d.bias", "mixer.x_proj.weight",
        "mixer.dt_proj.weight", "mixer.dt_proj.bias", "mixer.A_log", "mixer.D", "mixer.out_proj.weight",
    }  # fmt: skip
    # shapes as mamba_ssm's Mamba(768) declares them (mamba_simple.py: d_inner = 2 * 768, dt_rank = 48)
    shapes = {name: tuple(int(d) for d in shape.split(",") if d.strip()) for name, shape, _ in rows}
    assert shapes["mixer.in_proj.weight"] == (2 * 1536, 768) and shapes["mixer.x_proj.weight"] == (48 + 2 * 16, 1536)


@pytest.mark.parametrize("path", sorted(WORKED))
def test_each_page_shows_its_worked_table(rendered_pages, path: str) -> None:
    shown = worked(path)
    text = rendered_pages[path]
    assert f"### At {shown['name']}'s sizes" in text
    for r in shown["rows"]:
        assert f"| `{r['name']}` | `{r['shape']}` | {r['count']} |" in text


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(REFERENCE))
def test_reference_worked_tensors_are_the_reference_code_own(path: str, rendered_pages) -> None:
    import ssm_reference as ref

    from docs_src.pages import ssm_blocks

    example = ssm_blocks.WORKED[REFERENCE[path]]
    shown = ssm_blocks.worked_example(REFERENCE[path])
    if path == "blocks/s4.md":
        real = ref.torch_tensors(ref.s4_block_reference(*example.args, **example.kwargs))[0]
    elif path == "blocks/s5.md":
        h, size, blocks, activation = example.args
        real = list(ref.s5_layer_reference(h, size, blocks, activation=activation, **example.kwargs)["params"].items())
    else:
        real = list(ref.lru_layer_reference(*example.args)["params"].items())
    ours = [(r["name"], _shape(r["shape"])) for r in shown["rows"]]
    assert dict(ours) == dict(real) and len(ours) == len(real)  # every name and shape, once
    if path == "blocks/s4.md":
        assert ours == real  # in torch's order too (Flax sorts its paths)
    assert _number(shown["total"]) == sum(math.prod(shape) for _, shape in real)
    assert f"### The tensors of `{shown['code']}`" in rendered_pages[path]
