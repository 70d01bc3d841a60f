"""xlstm's own language model and block stack held against the package: ``xLSTMLMModel``,
``xLSTMBlockStack`` with ``mLSTMBlockConfig``/``sLSTMBlockConfig`` (the sLSTM with the vanilla
backend, built on the meta device), read from code as users write it and made by the registered
constructors. The xlstm README's example (7 blocks of width 128, an sLSTM block at 1, vocabulary
50,304, context 256) is one of the cases: its count is the package's, computed here, not a copy.
"""

from __future__ import annotations

import pytest

xlstm = pytest.importorskip("xlstm", reason="the xlstm package does not import here")
import live_record  # noqa: E402
import torch  # noqa: E402

from derive.engine.constructors import lookup  # noqa: E402
from derive.read.code.pytorch.reader import explain_torch  # noqa: E402
from derive.tree import count, named_parameters  # noqa: E402

#: (stack or LM keywords, mLSTM layer keywords or None, sLSTM layer keywords or None, feed-forward or "default"/None)
CASES = [
    # the xlstm README's example (README.md, "xLSTM Language Model"), with a vocabulary as its LM config
    (dict(num_blocks=7, embedding_dim=128, slstm_at=[1], context_length=256, vocab_size=50304),
     dict(conv1d_kernel_size=4, qkv_proj_blocksize=4, num_heads=4),
     dict(num_heads=4, conv1d_kernel_size=4, bias_init="powerlaw_blockdependent"),
     dict(proj_factor=1.3, act_fn="gelu")),
    (dict(num_blocks=3, embedding_dim=64, slstm_at=[0, 2], vocab_size=100, tie_weights=True, context_length=8),
     dict(num_heads=2), dict(num_heads=2, conv1d_kernel_size=0, group_norm_weight=False), None),
    (dict(num_blocks=2, embedding_dim=96, vocab_size=33, bias=True, add_post_blocks_norm=False, context_length=4),
     dict(num_heads=4, proj_factor=1.5, round_proj_up_to_multiple_of=32), None, None),
    (dict(num_blocks=2, embedding_dim=48, vocab_size=17, slstm_at="all"),
     None, dict(num_heads=3), dict(proj_factor=4 / 3, bias=True, round_proj_up_dim_up=False)),
    (dict(num_blocks=2, embedding_dim=64, vocab_size=10), None, dict(num_heads=4), "default"),
]  # fmt: skip


def _real(lm, m, s, ff, stack=False):
    mblock = None if m is None else xlstm.mLSTMBlockConfig(mlstm=xlstm.mLSTMLayerConfig(**m))
    sblock = None
    if s is not None:
        layer = xlstm.sLSTMLayerConfig(backend="vanilla", **s)
        sblock = (
            xlstm.sLSTMBlockConfig(slstm=layer)
            if ff == "default"
            else xlstm.sLSTMBlockConfig(slstm=layer, feedforward=None if ff is None else xlstm.FeedForwardConfig(**ff))
        )
    with torch.device("meta"):
        if stack:
            keys = {k: v for k, v in lm.items() if k not in ("vocab_size", "tie_weights")}
            return xlstm.xLSTMBlockStack(xlstm.xLSTMBlockStackConfig(mlstm_block=mblock, slstm_block=sblock, **keys))
        return xlstm.xLSTMLMModel(xlstm.xLSTMLMModelConfig(mlstm_block=mblock, slstm_block=sblock, **lm))


def _code(lm, m, s, ff, stack=False) -> str:
    def call(name, keys):
        return f"{name}(" + ", ".join(f"{k}={v!r}" for k, v in keys.items()) + ")"

    mblock = "None" if m is None else f"mLSTMBlockConfig(mlstm={call('mLSTMLayerConfig', m)})"
    sblock = "None"
    if s is not None:
        layer = call("sLSTMLayerConfig", {"backend": "cuda", **s})
        feed = "" if ff == "default" else f", feedforward={'None' if ff is None else call('FeedForwardConfig', ff)}"
        sblock = f"sLSTMBlockConfig(slstm={layer}{feed})"
    if stack:
        keys = {k: v for k, v in lm.items() if k not in ("vocab_size", "tie_weights")}
        config = f"xLSTMBlockStackConfig(mlstm_block={mblock}, slstm_block={sblock}, " + call("", keys)[1:]
        return (
            "import torch\nfrom xlstm import FeedForwardConfig, mLSTMBlockConfig, mLSTMLayerConfig\n"
            "from xlstm import sLSTMBlockConfig, sLSTMLayerConfig, xLSTMBlockStack, xLSTMBlockStackConfig\n\n"
            f"model = xLSTMBlockStack({config}).to('cuda')\n"
        )
    config = f"xLSTMLMModelConfig(mlstm_block={mblock}, slstm_block={sblock}, " + call("", lm)[1:]
    return (
        "from xlstm import (FeedForwardConfig, mLSTMBlockConfig, mLSTMLayerConfig, sLSTMBlockConfig,\n"
        "                   sLSTMLayerConfig, xLSTMLMModel, xLSTMLMModelConfig)\n\n"
        f"cfg = {config}\nmodel = xLSTMLMModel(cfg)\n"
    )


def _params(module):
    return [(n, tuple(p.shape)) for n, p in module.named_parameters()]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("stack", [False, True])
def test_xlstm_models_read_from_code_are_the_packages(case, stack):
    lm, m, s, ff = CASES[case]
    if stack and lm.get("tie_weights"):
        pytest.skip("tie_weights is the LM's")
    real = _real(lm, m, s, ff, stack)
    report = explain_torch(_code(lm, m, s, ff, stack))
    assert [(t["name"], tuple(t["shape"])) for t in report.tensors] == _params(real)
    assert report.total == sum(p.numel() for p in real.parameters())  # tied lm_head once
    assert not report.partial
    live_record.checked("xlstm", "xLSTMBlockStack" if stack else "xLSTMLMModel")


def test_the_readme_example_as_constructors():
    make = lambda name, *a, **k: lookup("xlstm", name).make(*a, **k)  # noqa: E731
    lm, m, s, ff = CASES[0]
    config = make(
        "xLSTMLMModelConfig",
        mlstm_block=make("mLSTMBlockConfig", make("mLSTMLayerConfig", **m)),
        slstm_block=make("sLSTMBlockConfig", make("sLSTMLayerConfig", **s), make("FeedForwardConfig", **ff)),
        **lm,
    )
    real = _real(lm, m, s, ff)
    tree = make("xLSTMLMModel", config)
    assert [(n, tuple(p.shape)) for n, p in named_parameters(tree)] == _params(real)
    assert count(tree) == sum(p.numel() for p in real.parameters()) == 13_642_672


@pytest.mark.parametrize(
    "code,words",
    [
        ("xLSTMLMModel(xLSTMLMModelConfig(num_blocks=2, vocab_size=10, slstm_at=[3],"
         " mlstm_block=mLSTMBlockConfig(), slstm_block=sLSTMBlockConfig()))", "Invalid slstm position 3"),
        ("xLSTMLMModel(xLSTMLMModelConfig(num_blocks=2, vocab_size=10, slstm_at=[1], mlstm_block=mLSTMBlockConfig()))",
         "slstm_block is None"),
        ("xLSTMLMModel(xLSTMLMModelConfig(num_blocks=2, vocab_size=10, mlstm_block=mLSTMBlockConfig()))",
         "context_length must be given"),
        ("xLSTMLMModel(xLSTMBlockStackConfig(num_blocks=2, mlstm_block=mLSTMBlockConfig()))", "takes a xLSTMLMModelConfig"),
        ("xLSTMLMModel(xLSTMLMModelConfig(mlstm_block=mLSTMBlockConfig(), vocab_size=10, dropout=0.1,"
         " unknown=1))", "unexpected keyword argument 'unknown'"),
    ],
)  # fmt: skip
def test_what_xlstm_refuses_is_refused(code, words):
    from derive.read.source import SourceError

    with pytest.raises(SourceError, match=words):
        explain_torch(
            "from xlstm import mLSTMBlockConfig, sLSTMBlockConfig, xLSTMBlockStackConfig, xLSTMLMModel, "
            "xLSTMLMModelConfig\n" + code
        )
