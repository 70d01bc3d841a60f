"""S4D, S4, S5 and the LRU held against transcriptions of their reference code, built with torch / Flax.

The transcriptions (file and lines cited there) are in ``tests/support/ssm_reference.py``: torch
on the meta device for state-spaces/s4, ``jax.eval_shape`` of Flax's ``init`` for S5 and the LRU.
Names, shapes, buffers and counts must equal derive's blocks'.
"""

from __future__ import annotations

from collections import defaultdict

import pytest
import ssm_reference as ref
import torch
from torch import nn

from derive.blocks import lru as dlru
from derive.blocks import s4 as ds4
from derive.blocks import s5 as ds5
from derive.tree import count, named_buffers, named_parameters

# One worker runs the whole module, in order (test_every_block_was_compared counts the cases before it;
# scripts/test hands groups out whole: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("ssm_reference")

CASES: dict[str, int] = defaultdict(int)


def tensors(module):
    """derive's parameters and buffers as lists of (name, shape)."""
    return (
        [(n, tuple(p.shape)) for n, p in named_parameters(module)],
        [(n, tuple(p.shape)) for n, p in named_buffers(module)],
    )


def derive_flax(module) -> dict:
    params, buffers = tensors(module)
    return {"params": dict(params), "batch_stats": dict(buffers)}


@pytest.mark.parametrize("h", [1, 4, 64, 100])
@pytest.mark.parametrize("n", [2, 7, 64])
@pytest.mark.parametrize("lr", [None, 0.0, 0.001])
def test_s4d_against_its_reference(h, n, lr) -> None:
    real = ref.s4d_reference(h, n, lr=lr)
    ours = ds4.s4d(h, n, lr=lr)
    assert tensors(ours) == ref.torch_tensors(real)
    assert count(ours) == ref.torch_count(real)
    CASES["S4D"] += 1


def test_s4d_complex_parameters_as_torch_counts_them() -> None:
    """With C a complex64 parameter, torch's numel() counts each complex entry once."""
    real = ref.s4d_reference(16, 8)
    with torch.device("meta"):
        real.kernel.C = nn.Parameter(torch.empty(16, 4, dtype=torch.cfloat))
    ours = ds4.s4d(16, 8, complex_params=True)
    assert tensors(ours) == ref.torch_tensors(real)
    assert count(ours) == ref.torch_count(real)
    assert count(ours, real=True) == sum(p.numel() * (2 if p.is_complex() else 1) for p in real.parameters())
    assert count(ours, real=True) == count(ds4.s4d(16, 8))


S4_OPTIONS = [
    {},
    {"mode": "diag"},
    {"mode": "s4d", "d_state": 16, "channels": 2},
    {"mode": "nplr", "bidirectional": True, "activation": "glu"},
    {"d_state": 8, "dt_tie": False, "rank": 2, "init": "legt"},
    {"n_ssm": 2, "lr": 0.0},
    {"mode": "diag", "lr": {"dt": 0.0, "A": 0.0}, "n_ssm": 1},
    {"mode": "diag", "is_real": True},
    {"mode": "diag", "is_real": True, "d_state": 16, "dt_tie": False},
    {"bottleneck": 2, "final_act": None},
    {"final_act": "gelu", "channels": 3, "lr": 0.001},
    {"mode": "dplr", "lr": {"B": 0.0, "C": 0.0}, "activation": "glu", "final_act": "id"},
]


@pytest.mark.parametrize("h", [4, 64])
@pytest.mark.parametrize("options", S4_OPTIONS, ids=str)
def test_s4_block_against_its_reference(h, options) -> None:
    real = ref.s4_block_reference(h, **options)
    ours = ds4.s4_block(h, **options)
    assert tensors(ours) == ref.torch_tensors(real)
    assert count(ours) == ref.torch_count(real)
    CASES["S4Block"] += 1


S5_CASES = [
    (128, 256, 8, {"activation": "half_glu1", "batchnorm": True}),
    (4, 8, 1, {}),
    (6, 12, 3, {"activation": "full_glu", "C_init": "complex_normal"}),
    (6, 12, 2, {"bidirectional": True, "activation": "half_glu2"}),
    (5, 8, 2, {"bidirectional": True, "C_init": "complex_normal"}),
    (3, 6, 2, {"conj_sym": False, "C_init": "lecun_normal"}),
]


@pytest.mark.parametrize(("h", "size", "blocks", "options"), S5_CASES)
def test_s5_layer_against_its_reference(h, size, blocks, options) -> None:
    real = ref.s5_layer_reference(h, size, blocks, **options)
    ours = ds5.s5_layer(h, size, blocks, **options)
    assert derive_flax(ours) == real
    assert count(ours) == ref.flax_count(real)
    CASES["S5"] += 1


def test_s5_sizes_the_reference_cannot_build_are_refused() -> None:
    """Blocks that do not divide the state fail in the reference's init; odd blocks under
    conj_sym build an SSM whose eigenvalues (blocks x block/2) and log_step (P) disagree."""
    with pytest.raises(TypeError):  # dot_general shape mismatch in init_VinvB
        ref.s5_layer_reference(4, 10, 4)
    with pytest.raises(ValueError, match="blocks"):
        ds5.s5_layer(4, 10, 4)
    odd = ref.s5_layer_reference(4, 6, 2)["params"]
    assert odd["seq/Lambda_re"] == (2,) and odd["seq/log_step"] == (3, 1)
    with pytest.raises(ValueError, match="blocks"):
        ds5.s5_layer(4, 6, 2)


@pytest.mark.parametrize(("n", "h"), [(128, 256), (1, 1), (7, 3), (64, 16)])
@pytest.mark.parametrize("norm", ["layer", "batch"])
def test_lru_layer_against_its_reference(n, h, norm) -> None:
    real = ref.lru_layer_reference(n, h, norm)
    ours = dlru.lru_layer(n, h, norm)
    assert derive_flax(ours) == real
    assert count(ours) == ref.flax_count(real)
    assert count(dlru.lru(n, h)) == 4 * n * h + 3 * n + h  # the paper's count, Appendix A
    CASES["LRU"] += 1


def test_every_block_was_compared() -> None:
    """Every block compared with its reference at least once in this process, whichever worker ran the
    module's other cases (a block none of them reached is compared here, one case each)."""
    if not CASES["S4D"]:
        test_s4d_against_its_reference(4, 7, None)
    if not CASES["S4Block"]:
        test_s4_block_against_its_reference(4, S4_OPTIONS[0])
    if not CASES["S5"]:
        test_s5_layer_against_its_reference(*S5_CASES[1])
    if not CASES["LRU"]:
        test_lru_layer_against_its_reference(7, 3, "layer")
    assert {k: v > 0 for k, v in CASES.items()} == {"S4D": True, "S4Block": True, "S5": True, "LRU": True}
