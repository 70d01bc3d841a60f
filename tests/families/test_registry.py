"""Every family as the registry declares it, held against transformers 5.23.0: each release derive ships
(its ``config.json`` as published, ``derive/families/data/<model_type>.json``) and each tiny config built
on the meta device — every tensor, buffer, the total, the active count, the class — and the tiny configs
run on the CPU: the cache after a forward at several batches and lengths, a token's FLOPs.

Nothing here names a family: the cases are read off the registry (:func:`derive.families.family.released`,
:func:`~derive.families.family.tiny`), so a new family is tested by its data alone. Expected values come from
transformers' models, never from derive. The first release of each model type runs in the fast loop, the
rest with the slow tests (marked here, by the data).
"""

from __future__ import annotations

import copy

import hf_cache
import hf_live
import pytest

import derive
from derive.families.family import families, released, tiny


def _without_type(config: dict) -> dict:
    return {k: v for k, v in copy.deepcopy(config).items() if k != "model_type"}


def _release_cases() -> list:
    cases = []
    for model_type in families():
        for i, release in enumerate(released(model_type)):
            marks = () if i == 0 else (pytest.mark.slow,)
            cases.append(pytest.param(model_type, release, marks=marks, id=release.name))
    return cases


def _tiny_cases() -> list:
    return [
        pytest.param(model_type, config, id=f"{model_type}-{i}")
        for model_type in families()
        for i, config in enumerate(tiny(model_type))
    ]


RELEASES = _release_cases()
TINY = _tiny_cases()


@pytest.mark.parametrize(("model_type", "release"), RELEASES)
def test_release_as_published(model_type: str, release) -> None:  # type: ignore[no-untyped-def]
    """The release's config.json, every key as published: derive answers it (no refusal, no note of a
    refusal) with transformers' tensors, buffers, total and active count. transformers builds it as the
    model type whose data holds it (a release's own ``model_type`` may be one transformers does not know:
    Kimi-K2's ``kimi_k2``, held by ``deepseek_v3``)."""
    config = _without_type(release.config)
    hf_live.check_family(model_type, config, builds=True)
    # as a user hands it over: the file's whole object, model_type included
    assert derive.explain(copy.deepcopy(dict(release.config))).total == hf_live.total(hf_live.build(model_type, config))


@pytest.mark.parametrize(("model_type", "config"), TINY)
def test_tiny_config_builds_as_transformers_builds_it(model_type: str, config: dict) -> None:
    hf_live.check_family(model_type, copy.deepcopy(config), builds=True)


@pytest.mark.parametrize(("model_type", "config"), TINY)
def test_tiny_config_parts_as_transformers_classes_place_them(model_type: str, config: dict) -> None:
    """Where the parameters sit, in all and per token, each placed by the class of its outermost module
    that is a part of the model transformers builds (``hf_live.parts``)."""
    live = hf_live.build(model_type, copy.deepcopy(config))
    whole, used = hf_live.parts(live)
    report = derive.explain({"model_type": model_type, **copy.deepcopy(config)})
    assert report.parts is not None
    assert {p["part"]: p["parameters"] for p in report.parts} == whole
    assert {p["part"]: p["active"] for p in report.parts} == used
    assert "other" not in whole


@pytest.mark.parametrize(("model_type", "config"), TINY)
def test_tiny_config_closed_forms_give_back_the_numbers(model_type: str, config: dict) -> None:
    """The total's and the cache's closed forms in the config's own letters, at its values."""
    import sympy

    report = derive.explain({"model_type": model_type, **copy.deepcopy(config)})
    formula = report.module.formula
    assert formula is not None
    values = {sympy.Symbol(k, integer=True, positive=True): v for k, v in formula.values}
    assert sympy.sympify(formula.expr).subs(values) == report.total
    hf_cache.check_closed_cache(model_type, copy.deepcopy(config))


@pytest.mark.parametrize(("model_type", "config"), TINY)
def test_tiny_config_saved_by_transformers(model_type: str, config: dict) -> None:
    """The config.json transformers writes for the tiny config (every key explicit, as releases are)."""
    hf_live.check_saved_config(model_type, copy.deepcopy(config))


@pytest.mark.parametrize(("model_type", "config"), TINY)
def test_tiny_model_cache_and_flops(model_type: str, config: dict) -> None:
    """The cache transformers' tiny model holds after a forward, by dtype, and a decode step's FLOPs."""
    for dtype, batch, prefill, steps in (("float32", 1, 3, 1), ("bfloat16", 2, 5, 2)):
        hf_cache.check_cache(model_type, copy.deepcopy(config), dtype, batch, prefill, steps)
    hf_cache.check_decode(model_type, copy.deepcopy(config))


def test_every_family_with_releases_has_tiny_configs() -> None:
    """A model type with releases also has the small configs its caches and FLOPs are run on."""
    missing = [t for t in families() if released(t) and not tiny(t)]
    assert missing == [], missing
