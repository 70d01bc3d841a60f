"""``derive.blocks.fla`` held against flash-linear-attention 0.6.0, live, in its own environment.

fla needs triton and torch 2.13, so it runs in ``.venv-ssm`` as a subprocess
(``tests/support/fla_layers_worker.py``): each layer is built there on the meta device from
hypothesis-drawn constructor arguments; every tensor's name and shape (``named_parameters()``
order), the buffers and the total must equal derive's, and derive must refuse exactly the
arguments fla refuses. derive's live-object reader (``read``) is run on the real objects and must
give back arguments that rebuild the same tensors.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import frameworks_live_extra as extra
import live_record
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derive.blocks import fla, fla_recurrent
from derive.engine.constructors import lookup
from derive.tree import count, named_buffers, named_parameters

ROOT = Path(__file__).resolve().parents[2]
PYTHON = os.environ.get("DERIVE_SSM_PYTHON") or str(ROOT / ".venv-ssm/bin/python")

if not Path(PYTHON).exists():
    pytest.skip(".venv-ssm is missing (torch + triton + flash-linear-attention 0.6.0)", allow_module_level=True)

# One worker runs the whole module, in order (test_every_class_was_held_live counts the cases before it;
# scripts/test hands groups out whole: --dist loadgroup).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("fla_layers_live")]

PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BUILD = {
    "GatedLinearAttention": fla.gated_linear_attention,
    "MultiScaleRetention": fla.multiscale_retention,
    "HGRNAttention": fla_recurrent.hgrn_attention,
    "HGRN2Attention": fla_recurrent.hgrn2_attention,
    "DeltaNet": fla_recurrent.delta_net,
}
#: Live cases compared per class in this run (reported by the last test).
CASES: dict[str, int] = dict.fromkeys(BUILD, 0)


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


def live(cls: str, kwargs: dict, read: bool = False) -> dict | str:
    """fla's answer: the tensors, or the refusal's ``"<Type>: <message>"``."""
    try:
        return extra.worker_request("fla_layers", PYTHON, {"cls": cls, "kwargs": kwargs, "read": read})
    except RuntimeError as error:
        return str(error)


def derived(cls: str, kwargs: dict) -> dict | Exception:
    try:
        module = BUILD[cls](**kwargs)
    except (ValueError, TypeError) as error:
        return error
    return {
        "params": [[n, list(p.shape)] for n, p in named_parameters(module)],
        "buffers": [[n, list(p.shape)] for n, p in named_buffers(module)],
        "total": count(module),
    }


def check(cls: str, kwargs: dict) -> None:
    real, ours = live(cls, kwargs, read=True), derived(cls, kwargs)
    if isinstance(real, str):
        assert isinstance(ours, Exception), f"fla refuses {kwargs} ({real}) but derive gives {ours}"
        return
    assert not isinstance(ours, Exception), f"fla builds {kwargs} but derive refuses: {ours}"
    assert ours["params"] == real["params"]
    assert ours["buffers"] == real["buffers"]
    assert ours["total"] == real["total"] == sum(math.prod(s) for _, s in real["params"])
    args, read_kwargs = real["read"]  # derive's reader on the live object rebuilds the same tensors
    again = lookup("fla", cls).make(*args, **read_kwargs)
    assert [[n, list(p.shape)] for n, p in named_parameters(again)] == real["params"]
    CASES[cls] += 1
    live_record.checked("fla", cls)


def test_the_defaults_and_recorded_names() -> None:
    real = live("DeltaNet", {})
    assert [n for n, _ in real["params"]][:5] == [
        "q_proj.weight",
        "k_proj.weight",
        "v_proj.weight",
        "b_proj.weight",
        "q_conv1d.weight",
    ]
    assert live("MultiScaleRetention", {})["buffers"] == [["rotary.inv_freq", [64]]]
    for cls in BUILD:
        check(cls, {})
    check("MultiScaleRetention", {"hidden_size": 2048, "num_heads": 8})  # the module's doctest
    check("DeltaNet", {"hidden_size": 2048, "num_heads": 16})
    assert live("MultiScaleRetention", {"hidden_size": 2048, "num_heads": 8})["total"] == 33_554_944


SIZES = st.sampled_from([64, 96, 128, 256, 100])
CONV = {"use_short_conv": st.booleans(), "conv_size": st.sampled_from([2, 3, 4]), "conv_bias": st.booleans()}
ATTENTION = {
    "hidden_size": SIZES,
    "expand_k": st.sampled_from([0.25, 0.5, 0.5, 0.75, 1.0, 1.0, 1.5, 0.3]),
    "expand_v": st.sampled_from([0.5, 1.0, 1.0, 2.0, 0.3]),
    "num_heads": st.sampled_from([1, 2, 4, 4, 8, 3]),
    "num_kv_heads": st.sampled_from([None, None, None, 1, 2, 4]),
    "feature_map": st.sampled_from([None, None, None, "relu", "elu"]),
    "use_output_gate": st.booleans(),
    "gate_fn": st.sampled_from(["swish", "swish", "sigmoid", "gelu", "tanh"]),
    "elementwise_affine": st.sampled_from([True, False, None]),
    "fuse_norm": st.booleans(),
    **CONV,
}


@PROPERTY
@given(
    st.fixed_dictionaries(
        ATTENTION,
        optional={
            "mode": st.sampled_from(["chunk", "fused_recurrent", "fused_chunk", "parallel"]),
            "gate_low_rank_dim": st.sampled_from([4, 16, 32]),
        },
    )
)
def test_gated_linear_attention(kwargs) -> None:
    check("GatedLinearAttention", kwargs)


@PROPERTY
@given(
    st.fixed_dictionaries(
        ATTENTION
        | {  # RetNet takes transformers' activations, two of them with tensors of their own
            "feature_map": st.sampled_from([None, None, None, "relu", "elu", "prelu", "xielu"]),
            "gate_fn": st.sampled_from(["swish", "swish", "sigmoid", "prelu", "xielu", "bias_gelu"]),
        },
        optional={"mode": st.sampled_from(["chunk", "fused_recurrent", "parallel", "recurrent"])},
    )
)
def test_multiscale_retention(kwargs) -> None:
    check("MultiScaleRetention", kwargs)


@PROPERTY
@given(
    st.fixed_dictionaries(
        {
            "hidden_size": SIZES,
            "expand_ratio": st.sampled_from([1, 2, 3, 0.5, 1.5]),
            "elementwise_affine": st.sampled_from([True, False]),
            **CONV,
        },
        optional={"mode": st.sampled_from(["chunk", "fused_recurrent", "fused_chunk"])},
    )
)
def test_hgrn(kwargs) -> None:
    check("HGRNAttention", kwargs)


@PROPERTY
@given(
    st.fixed_dictionaries(
        {
            "hidden_size": st.sampled_from([64, 100, 128, 192, 256]),
            "expand_ratio": st.sampled_from([None, 16, 32, 48, 64, 128]),
            "num_heads": st.sampled_from([None, 2, 3, 4]),
            "elementwise_affine": st.sampled_from([True, False]),
            **CONV,
        },
        optional={"mode": st.sampled_from(["chunk", "fused_recurrent", "fused_chunk", "parallel"])},
    )
)
def test_hgrn2(kwargs) -> None:
    check("HGRN2Attention", kwargs)


@PROPERTY
@given(
    st.fixed_dictionaries(
        {
            "hidden_size": SIZES,
            "expand_k": st.sampled_from([0.5, 0.75, 1.0, 1.0, 1.3]),
            "expand_v": st.sampled_from([0.5, 1.0, 2.0]),
            "num_heads": st.sampled_from([1, 2, 4, 4, 6]),
            "use_beta": st.booleans(),
            "use_gate": st.booleans(),
            "qk_activation": st.sampled_from(["silu", "silu", "relu", "elu", "identity", "tanh"]),
            "qk_norm": st.sampled_from(["l2", "l2", "sum", "l1"]),
            **CONV,
        },
        optional={
            "mode": st.sampled_from(["chunk", "fused_recurrent", "fused_chunk"]),
            "d_model": st.sampled_from([32, 64]),
        },
    )
)
def test_delta_net(kwargs) -> None:
    check("DeltaNet", kwargs)


GRID = [
    ("GatedLinearAttention", {"hidden_size": 256, "num_heads": 4, "num_kv_heads": 2, "use_short_conv": True}),
    ("GatedLinearAttention", {"hidden_size": 96, "num_heads": 3, "expand_k": 1.0, "gate_fn": "sigmoid"}),
    ("GatedLinearAttention", {"hidden_size": 128, "use_output_gate": False, "elementwise_affine": False}),
    ("GatedLinearAttention", {"hidden_size": 64, "feature_map": "relu", "gate_low_rank_dim": 8, "conv_bias": True}),
    ("MultiScaleRetention", {"hidden_size": 256, "num_heads": 4, "num_kv_heads": 2, "use_short_conv": True}),
    ("MultiScaleRetention", {"hidden_size": 128, "fuse_norm": False, "gate_fn": "prelu", "feature_map": "xielu"}),
    ("MultiScaleRetention", {"hidden_size": 64, "num_heads": 2, "use_output_gate": False, "feature_map": "prelu"}),
    ("MultiScaleRetention", {"hidden_size": 96, "num_heads": 3, "expand_v": 1.0, "elementwise_affine": False}),
    ("HGRNAttention", {"hidden_size": 100, "expand_ratio": 1.5, "use_short_conv": True, "conv_bias": True}),
    ("HGRN2Attention", {"hidden_size": 256, "expand_ratio": None, "num_heads": 4, "use_short_conv": True}),
    ("HGRN2Attention", {"hidden_size": 192, "expand_ratio": 64, "elementwise_affine": False}),
    ("DeltaNet", {"hidden_size": 128, "num_heads": 2, "use_gate": True, "use_short_conv": False}),
    ("DeltaNet", {"d_model": 64, "expand_v": 2.0, "use_beta": False, "conv_bias": True, "qk_norm": "sum"}),
    (
        "DeltaNet",
        {"hidden_size": 96, "num_heads": 6, "expand_k": 0.5, "qk_activation": "relu", "mode": "fused_recurrent"},
    ),
]


@pytest.mark.parametrize(("cls", "kwargs"), GRID, ids=str)
def test_a_grid_of_valid_configurations(cls, kwargs) -> None:
    assert isinstance(live(cls, kwargs), dict), "every configuration of the grid builds in fla"
    check(cls, kwargs)


def test_every_class_was_held_live() -> None:
    """Runs last in this module: each class was compared in some valid configurations."""
    assert all(n > 0 for n in CASES.values()), CASES
    print("fla live cases:", CASES)
