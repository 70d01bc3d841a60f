"""The released-models page (``/language-models/released/``): a row for every release derive ships, each
with derive's total, active count and cache, and a link to its family's page. The numbers themselves are
held against transformers by ``tests/families/test_registry.py`` (each release built on the meta device)."""

from __future__ import annotations

from pathlib import Path

import pytest

import derive
from derive.analysis.cost import cost
from derive.families.family import families, released
from docs_src.pages import released as page
from docs_src.site import _environment, number, pages

ROOT = Path(__file__).resolve().parents[2]


def test_every_release_has_its_row_with_derives_numbers() -> None:
    markdown = (
        _environment(ROOT / "templates")
        .get_template("language-models-released.md.j2")
        .render(**page.released_context())
    )
    built = {p.path for p in pages()}
    shipped = [(t, r) for t in families() for r in released(t)]
    assert len(page.rows()) == len(shipped) >= 40
    lines = {
        line.split("](", 1)[0].removeprefix("| ["): line for line in markdown.splitlines() if line.startswith("| [")
    }
    for model_type, release in shipped:
        config = {"model_type": model_type, **{k: v for k, v in release.config.items() if k != "model_type"}}
        report = derive.explain(config)
        priced = cost(config, page.CONTEXT, 1, "bfloat16")
        row = lines[release.name]
        cells = [c.strip() for c in row.split("|")]
        assert cells[3] == number(report.total) and cells[4] == number(report.active), release.name
        assert cells[5] == number(priced.kv_bytes_per_token) and cells[6] == number(priced.state_bytes)
        assert cells[7] == f"{priced.cache_bytes / 2**30:.2f}"
        target = cells[2].split("](", 1)[1].rstrip(")")
        linked = target.removeprefix("../") if target.startswith("../") else f"language-models/{target}"
        assert linked in built, (release.name, target)  # a page of the site


@pytest.mark.parametrize(
    ("template", "anchor"),
    [("language-models-released.md.j2", "{ #fit }"), ("language-models-memory.md.j2", "{ #fits-all }")],
)
def test_the_fit_table_gives_each_models_longest_context(template: str, anchor: str) -> None:
    """The "will it fit" table of every release, on the released-models page and on the memory page: weights +
    cache at 8K/32K/128K, and the longest context in 24/48/80 GiB — at that length the weights and the cache
    fit, one token more they do not (derive's cost, whose cache is held against transformers' tiny models and
    whose weights are the parameters transformers builds)."""
    from docs_src.pages import language_models as lm

    context = page.released_context() if "released" in template else lm.memory_context()
    markdown = _environment(ROOT / "templates").get_template(template).render(**context)
    table = markdown[markdown.index(anchor) :]
    lines = {line.split(" |", 1)[0].removeprefix("| "): line for line in table.splitlines() if line.startswith("| ")}
    checked = 0
    for model_type in families():
        for release in released(model_type):
            config = {"model_type": model_type, **{k: v for k, v in release.config.items() if k != "model_type"}}
            cells = [c.strip() for c in lines[release.name].split("|")][1:-1]
            weights = cost(config, 1, 1, "bfloat16").weights_bytes  # as stored (a quantized release: fewer)
            assert cells[1] == f"{weights / 2**30:.2f}", release.name
            for cell, t in zip(cells[2:5], page.CONTEXTS):
                assert cell == f"{(weights + cost(config, t, 1, 'bfloat16').cache_bytes) / 2**30:.2f}"
            for cell, gib in zip(cells[5:8], page.BUDGETS):
                budget = gib * 2**30
                if cell == "—":
                    assert weights + cost(config, 1, 1, "bfloat16").cache_bytes > budget
                elif cell == "any":  # the cache stops growing (states, capped windows) and fits
                    need = [
                        weights + cost(config, n, 1, "bfloat16").cache_bytes for n in (2**22, 2**24)
                    ]  # past every window
                    assert need[0] == need[1] <= budget, (release.name, gib)
                else:
                    t = int(cell.replace(",", ""))
                    need = [weights + cost(config, n, 1, "bfloat16").cache_bytes for n in (t, t + 1)]
                    assert need[0] <= budget < need[1], (release.name, gib, t)
                    checked += 1
    assert checked >= 10


def test_each_family_page_lists_every_stored_release_of_its_types() -> None:
    """A family page's "every stored release" table: each release derive ships of the page's model types, with the
    released-models page's numbers ("Llama-3.1-405B" typed in search lands on the Transformer baselines page)."""
    from docs_src.pages import language_models as lm

    env = _environment(ROOT / "templates")
    listed = 0
    for family in lm.FAMILIES:
        context = lm.family_context(family)
        shipped = [r.name for t in family.model_types if t in families() for r in released(t)]
        assert sorted(r["name"] for r in context["stored"]) == sorted(shipped), family.key
        markdown = env.get_template("language-model.md.j2").render(**context)
        table = markdown[markdown.index("{ #stored }") :] if shipped else ""
        for row in context["stored"]:
            line = next(line for line in table.splitlines() if line.startswith(f"| [{row['name']}]("))
            cells = [c.strip() for c in line.split("|")][1:-1]
            assert cells[2:] == [number(row["total"]), number(row["active"]), number(row["kv_per_token"]),
                                 number(row["state"]), f"{row['cache'] / 2**30:.2f}"]  # fmt: skip
            listed += 1
    assert listed >= 30
