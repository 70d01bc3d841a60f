"""Every number on the Mamba and Mamba-2 pages, held against transformers (meta device) and mamba_ssm.

The pages' data (``docs_src/pages/mamba.py``) is computed by derive; here each total, each per-part
count and each block count is rebuilt in the real library: ``MambaLMHeadModel`` and the blocks in
``.venv-ssm`` (``tests/support/mamba_worker.py``), ``AutoModelForCausalLM.from_config`` on the meta
device for the transformers configs.
"""

from __future__ import annotations

import re

import hf_live
import pytest
import sympy
from mamba_live import live, ssm_python

import derive
from derive.blocks import mamba, mamba2
from derive.tree import count
from docs_src.pages import mamba as page

pytestmark = pytest.mark.slow
if ssm_python() is None:
    pytest.skip(".venv-ssm is missing (scripts/bootstrap --test makes it)", allow_module_level=True)


def integer(text: str) -> int:
    return int(text.replace(",", ""))


def live_under(tensors: list, path: str) -> int:
    pattern = re.compile(re.escape(path).replace(r"\{k\}", r"\d+") + r"\.")
    total = 0
    for name, shape in tensors:
        if pattern.match(name):
            total += int(sympy.Mul(*shape))
    return total


@pytest.fixture(scope="module")
def mamba_page() -> dict:
    return page.mamba_context()


@pytest.fixture(scope="module")
def mamba2_page() -> dict:
    return page.mamba2_context()


def test_released_mamba_models(mamba_page: dict) -> None:
    for row in mamba_page["releases"]:
        got = live({"kind": "lm", "config": page.release_config(row["name"])})
        assert integer(row["total"]) == got["total"], row["name"]
        assert integer(row["vocab"]) == got["tensors"][0][1][0]
        model = hf_live.build("mamba", {k: v for k, v in page.hf_config(row["name"]).items() if k != "model_type"})
        assert integer(row["hf_total"]) == hf_live.total(model), row["name"]


def test_released_mamba2_models(mamba2_page: dict) -> None:
    for row in mamba2_page["releases"]:
        got = live({"kind": "lm", "config": page.release_config(row["name"])})
        assert integer(row["total"]) == got["total"], row["name"]
        assert integer(row["vocab"]) == got["tensors"][0][1][0]
    got = live({"kind": "lm", "config": page.release_config("mamba2-130m")})
    formula = derive.explain(page.release_config("mamba2-130m")).module.formula
    assert (
        formula.expr.subs({sympy.Symbol(k, integer=True, positive=True): v for k, v in formula.values}) == got["total"]
    )
    for row in mamba2_page["small_rows"]:
        assert integer(row["params"]) == live_under(got["tensors"], row["name"]), row["name"]


def test_the_questions(mamba_page: dict) -> None:
    for key in ("q817", "q697"):
        arguments = page.QUESTIONS[key[1:]]["Mamba"]
        got = live({"kind": "Mamba", "kwargs": arguments})
        assert integer(mamba_page[key]["total"]) == got["total"]
        assert [(n, integer(c)) for n, c in mamba_page[key]["parts"]] == [
            (n, int(sympy.Mul(*s))) for n, s in got["tensors"]
        ]
    block = live({"kind": "Mamba", "kwargs": {"d_model": 1600}})["total"]
    assert [(n, integer(t)) for n, t in mamba_page["q697_blocks"]] == [
        (n, n * block) for n, _ in mamba_page["q697_blocks"]
    ]
    for key, question in (("q48_asked", "48-asked"), ("q48_now", "48-now")):
        got = live({"kind": "lm", "config": page.QUESTIONS[question]["config"]})
        assert integer(mamba_page[key]["total"]) == got["total"]
        for row in mamba_page[key]["rows"]:
            assert integer(row["params"]) == live_under(got["tensors"], row["name"])
    assert integer(mamba_page["q48_asked"]["total"]) == 1_449_006_080  # the number in the issue
    assert (
        integer(mamba_page["q48_small"]) == live({"kind": "lm", "config": page.release_config("mamba-130m")})["total"]
    )
    assert integer(mamba_page["q48_big"]) == live({"kind": "lm", "config": page.release_config("mamba-2.8b")})["total"]
    model = hf_live.build("mamba", {k: v for k, v in page.hf_config("mamba-130m").items() if k != "model_type"})
    for key in ("q442", "model_rows"):
        for row in mamba_page[key]:
            assert integer(row["params"]) == hf_live.under(model, row["name"]), (key, row["name"])


def test_mamba2_transformers_numbers(mamba2_page: dict) -> None:
    assert integer(mamba2_page["default_total"]) == hf_live.total(hf_live.build("mamba2", {}))
    default = hf_live.build("mamba2", {})
    for row in mamba2_page["default_rows"]:
        assert integer(row["params"]) == hf_live.under(default, row["name"])
    # mamba#752: transformers reads the mamba_ssm config as a default-sized Mamba2Config; derive refuses it
    config = page.release_config("mamba2-130m")
    wrong = hf_live.build("mamba2", config)
    assert tuple(wrong.backbone.embeddings.weight.shape) == (50277, 4096)
    assert "config key 'd_model' (768) is not read by transformers' Mamba2Config" in mamba2_page["q752"]


def test_the_closed_forms_shown() -> None:
    """The blocks' closed forms on the pages, at concrete sizes, against the live blocks."""
    D, E, N, K, R = (sympy.Symbol(s, integer=True, positive=True) for s in "DENKR")
    block = count(mamba.mixer(D, N, K, d_inner=E, dt_rank=R))
    for kwargs in ({"d_model": 40, "d_state": 8, "d_conv": 3, "expand": 2, "dt_rank": 5}, {"d_model": 18}):
        values = {
            D: kwargs["d_model"],
            E: 2 * kwargs["d_model"],
            N: kwargs.get("d_state", 16),
            K: kwargs.get("d_conv", 4),
        }
        values[R] = kwargs.get("dt_rank", -(-kwargs["d_model"] // 16))
        assert block.subs(values) == live({"kind": "Mamba", "kwargs": kwargs})["total"]
        formula = mamba.Mamba(**kwargs).formula
        assert formula.expr.subs(
            {sympy.Symbol(k, integer=True, positive=True): v for k, v in formula.values}
        ) == block.subs(values)
    for kwargs in ({"d_model": 64, "headdim": 16, "ngroups": 2, "d_state": 8}, {"d_model": 256}):
        formula = mamba2.Mamba2(**kwargs).formula
        values = {sympy.Symbol(k, integer=True, positive=True): v for k, v in formula.values}
        assert formula.expr.subs(values) == live({"kind": "Mamba2", "kwargs": kwargs})["total"]


def test_the_tensor_tables_name_the_live_tensors(mamba_page: dict, mamba2_page: dict) -> None:
    for cls, context, kwargs in (("Mamba", mamba_page, {"d_model": 32}), ("Mamba2", mamba2_page, {"d_model": 64})):
        names = [n for n, _ in live({"kind": cls, "kwargs": kwargs})["tensors"]]
        assert [t["name"] for t in context["tensors"]] == names
    model = hf_live.build("mamba", {"hidden_size": 32, "num_hidden_layers": 1, "vocab_size": 10})
    hf = {n.replace(".0.", ".{k}.") for n, _ in model.named_parameters() if ".mixer." in n}
    assert {t["hf"] for t in mamba_page["tensors"]} == hf
    model = hf_live.build("mamba2", {"hidden_size": 64, "num_heads": 2, "num_hidden_layers": 1, "vocab_size": 10})
    hf = {n.replace(".0.", ".{k}.") for n, _ in model.named_parameters() if ".mixer." in n}
    assert {t["hf"] for t in mamba2_page["tensors"]} == hf


def test_one_letter_one_meaning(mamba_page: dict, mamba2_page: dict) -> None:
    """d_model is D on both pages, in the constructor's closed form as in the block's (never a second letter d
    beside it), and Mamba-2's heads are n_h, never H (the hidden size on every other page)."""
    lone = re.compile(r"(?<![\\A-Za-z_])([dH])(?![A-Za-z_])")
    for context in (mamba_page, mamba2_page):
        for key in ("block", "constructor"):
            assert "D" in context[key], key
            assert not lone.findall(context[key]), (key, context[key])
    assert not lone.findall(" ".join(eq for _, eq in mamba2_page["equations"]).replace(r"\mathrm{d}", ""))
