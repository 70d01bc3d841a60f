"""Every number on the block pages (S4 and S4D, S5, LRU, fla) held against the reference code.

S4/S4D, S5 and LRU: the transcriptions of the reference code (``tests/support/ssm_reference.py``)
rebuild every worked example; complex entries are counted by torch's / JAX's own ``numel`` /
``size`` of complex tensors; each closed form is evaluated at sample sizes and compared with the
reference. fla: every example and every layer's default tensors are built live with fla 0.6.0 in
``.venv-ssm`` (slow).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest
import ssm_reference as ref
import sympy
import torch
from torch import nn

from docs_src.pages import fla_blocks, ssm_blocks
from docs_src.pages.ssm_blocks import CLOSED_FORMS, LRU_EXAMPLES, S4_EXAMPLES, S5_EXAMPLES

ROOT = Path(__file__).resolve().parents[2]
PYTHON = os.environ.get("DERIVE_SSM_PYTHON") or str(ROOT / ".venv-ssm/bin/python")


@pytest.fixture(autouse=True, scope="module")
def _close_the_worker():
    """Stop the fla subprocess when this module is done (it is started on first use)."""
    yield
    import frameworks_live_extra as extra

    process = extra._WORKERS.pop("fla_layers", None)
    if process is not None:
        process.stdin.close()
        process.wait(timeout=30)
        process.stdout.close()


def complexified(module: nn.Module) -> nn.Module:
    """The same module with each ``view_as_real`` parameter (C, B, P) as one complex tensor."""
    for owner in module.modules():
        for name, p in list(owner.named_parameters(recurse=False)):
            if name in ("C", "B", "P") and p.shape[-1] == 2 and p.dim() >= 3:
                with torch.device("meta"):
                    setattr(owner, name, nn.Parameter(torch.empty(p.shape[:-1], dtype=torch.cfloat)))
    return module


def torch_reference(example) -> nn.Module:
    make = ref.s4d_reference if example.cls == "S4D" else ref.s4_block_reference
    return make(*example.args, **example.kwargs)


def flax_reference(example) -> dict:
    if example.build is ssm_blocks.s5.s5_layer:
        h, size, blocks, activation = example.args
        return ref.s5_layer_reference(h, size, blocks, activation=activation, **example.kwargs)
    n, h, norm = example.args
    return ref.lru_layer_reference(n, h, norm)


def jax_complex_size(params: dict) -> int:
    """Entries of the Flax params with each complex quantity as one complex64 array (JAX's ``size``)."""
    import jax.numpy as jnp

    total = 0
    for name, shape in params.items():
        leaf = name.rsplit("/", 1)[-1]
        if leaf in ("B", "C", "C1", "C2") and name.startswith("seq/") and shape[-1] == 2:
            total += jnp.zeros(shape[:-1], dtype=jnp.complex64).size
        elif leaf in ("B_im", "C_im", "Lambda_im"):
            continue  # one complex array with its real part
        else:
            total += jnp.zeros(shape).size
    return total


def test_s4_page_examples_against_the_reference() -> None:
    rows = ssm_blocks.s4_context()["examples"]
    assert len(rows) == len(S4_EXAMPLES)
    for example, row in zip(S4_EXAMPLES, rows):
        real = torch_reference(example)
        assert row["count"] == ref.torch_count(real) == row["complex_real"], example
        assert row["buffers"] == len(list(real.buffers()))
        assert row["complex_numel"] == ref.torch_count(complexified(torch_reference(example))), example


def test_s5_and_lru_page_examples_against_the_reference() -> None:
    for context, examples in ((ssm_blocks.s5_context(), S5_EXAMPLES), (ssm_blocks.lru_context(), LRU_EXAMPLES)):
        for example, row in zip(examples, context["examples"], strict=True):
            real = flax_reference(example)
            assert row["count"] == ref.flax_count(real) == row["complex_real"], example
            assert row["buffers"] == len(real["batch_stats"])
            assert row["complex_numel"] == jax_complex_size(real["params"]), example
    assert ssm_blocks.s5_context()["P"] == ref.s5_layer_reference(128, 256, 8)["params"]["seq/log_step"][0]


def reference_count(key: str, values: dict) -> int:
    """The reference's count for a closed form's configuration at sizes ``values`` (letter -> int)."""
    build, args, kwargs = CLOSED_FORMS[key]
    sub = lambda v: int(v.subs(values)) if isinstance(v, sympy.Basic) else v  # noqa: E731
    args, kwargs = tuple(sub(a) for a in args), {k: sub(v) for k, v in kwargs.items()}
    if key.startswith("s4d"):
        return ref.torch_count(ref.s4d_reference(*args, **kwargs))
    if key.startswith("s4"):
        return ref.torch_count(ref.s4_block_reference(*args, **kwargs))
    if key.startswith("s5"):
        if key == "s5_layer":
            h, size, blocks, activation = args
            return ref.flax_count(ref.s5_layer_reference(h, size, blocks, activation=activation, **kwargs))
        h, p = args  # the SSM alone: seq/ of a layer whose P is p (conj_sym halves 2p)
        params = ref.s5_layer_reference(h, 2 * p, 1, **kwargs)["params"]
        return sum(math.prod(s) for n, s in params.items() if n.startswith("seq/"))
    n, h = args
    params = ref.lru_layer_reference(n, h, kwargs.get("norm", "layer"))["params"]
    return sum(math.prod(s) for k, s in params.items() if key == "lru_layer" or k.startswith("seq/"))


SAMPLES = [
    {"H": 4, "N": 8, "P": 3, "S": 2, "r": 2, "c": 1},
    {"H": 6, "N": 12, "P": 5, "S": 3, "r": 1, "c": 2},
    {"H": 64, "N": 64, "P": 32, "S": 1, "r": 2, "c": 3},
]


@pytest.mark.parametrize("key", sorted(CLOSED_FORMS))
@pytest.mark.parametrize("sample", SAMPLES, ids=str)
def test_every_closed_form_on_the_pages_at_sample_sizes(key, sample) -> None:
    build, args, kwargs = CLOSED_FORMS[key]
    from derive.tree import count

    letters = {s.name: s for s in count(build(*args, **kwargs)).free_symbols}
    value = count(build(*args, **kwargs)).subs({letters[k]: v for k, v in sample.items() if k in letters})
    symbols = {sympy.Symbol(k, integer=True, positive=True): v for k, v in sample.items()}
    assert int(value) == reference_count(key, symbols), (key, sample)
    page = ssm_blocks._forms(build, *args, **kwargs)  # the LaTeX shown is this expression's
    assert page["stored"] == sympy.latex(count(build(*args, **kwargs)))


def test_the_s4_issue_24_answer() -> None:
    q = ssm_blocks.s4_context()["q24"]
    assert q["s4d"] == ref.torch_count(ref.s4d_reference(64))
    assert q["s4d_frozen"] == ref.torch_count(ref.s4d_reference(64, lr=0.0))
    assert q["s4d_difference"] == q["s4d"] - q["s4d_frozen"]
    assert {n for n, _ in ref.s4d_reference(64, lr=0.0).named_buffers()} == {
        "kernel.log_dt",
        "kernel.log_A_real",
        "kernel.A_imag",
    }
    assert q["block"] == ref.torch_count(ref.s4_block_reference(256))
    frozen = ref.s4_block_reference(256, lr=0.0)
    assert q["block_frozen"] == ref.torch_count(frozen)
    assert "layer.kernel.C" in dict(frozen.named_buffers())  # a float lr freezes C too
    abd = ref.s4_block_reference(256, lr={"dt": 0.0, "A": 0.0, "B": 0.0})
    assert q["block_abd"] == ref.torch_count(abd) and "layer.kernel.C" in dict(abd.named_parameters())


def test_the_pages_render() -> None:
    from docs_src.site import _environment

    env = _environment(ROOT / "templates")
    for page in ssm_blocks.PAGES + fla_blocks.PAGES:
        text = env.get_template(page.template).render(**page.context())
        assert "{{" not in text and "nan" not in text.lower().split()
        assert "$$\n$$" not in text, "display equations need a blank line between them (arithmatex)"


@pytest.mark.slow
def test_fla_page_against_fla() -> None:
    if not Path(PYTHON).exists():
        pytest.skip(".venv-ssm is missing (torch + triton + flash-linear-attention 0.6.0)")
    import frameworks_live_extra as extra

    context = fla_blocks.fla_context()
    for example, row in zip(fla_blocks.EXAMPLES, context["examples"], strict=True):
        real = extra.worker_request("fla_layers", PYTHON, {"cls": example.cls, "kwargs": example.kwargs})
        assert row["count"] == real["total"], example
    for layer in context["layers"]:
        real = extra.worker_request("fla_layers", PYTHON, {"cls": layer["cls"], "kwargs": {}})
        assert layer["default"] == real["total"]
        assert [(t["name"], list(t["default"])) for t in layer["tensors"]] == [(n, s) for n, s in real["params"]]
    heads = (16, None)
    for n, ratio in zip(context["hgrn2_heads"], (128, None)):
        kwargs = {"hidden_size": 2048, "num_heads": heads[0], "expand_ratio": ratio}
        assert n == extra.worker_request("fla_layers", PYTHON, {"cls": "HGRN2Attention", "kwargs": kwargs})["total"]
