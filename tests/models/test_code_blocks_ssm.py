"""Model code importing mamba_ssm and flash-linear-attention, read by derive and held against the libraries.

mamba-ssm 2.3.2.post1 and flash-linear-attention 0.6.0 run in their own environment, ``.venv-ssm``:
``tests/support/code_files_worker.py`` executes each trusted file there on ``torch.device("meta")``
(mamba_ssm's CUDA extension stubbed) and reports ``named_parameters()``, ``named_buffers()`` and the
total, which must be derive's reading of the same file, name for name and shape for shape.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from frameworks_live_extra import worker_request
from mamba_live import ssm_python

from derive.read.code.pytorch.reader import explain_torch
from derive.tree import named_buffers

pytestmark = pytest.mark.slow

if ssm_python() is None:
    pytest.skip(".venv-ssm is missing (scripts/bootstrap --test makes it)", allow_module_level=True)

FILES = Path(__file__).parent / "block_files"


def check(path: Path, title: str | None = None) -> None:
    """derive's reading of the file at ``path`` against the model the libraries build from it."""
    python = ssm_python()
    assert python is not None
    got = worker_request("code_files", python, {"file": str(path), "expression": "model"})
    report = explain_torch(path.read_text())
    assert [[t["name"], list(t["shape"])] for t in report.tensors] == got["tensors"]
    assert [[n, list(p.shape)] for n, p in named_buffers(report.module)] == got["buffers"]
    assert report.total == got["total"] and not report.partial
    if title is not None:
        assert report.title == title


#: files -> the title derive gives the model
ANSWERED = {
    "mamba_lm.py": "MambaLM (nn.Module)",
    "hybrid_stack.py": "HybridModel (nn.Module)",
    "mamba2_config_dict.py": "Mamba2Backbone (nn.Module)",
    "mamba_lm_head_model.py": "MambaLMHeadModel",
    "fla_stack.py": "LinearAttentionLM (nn.Module)",
}


@pytest.mark.parametrize("name", sorted(ANSWERED))
def test_files_are_answered_exactly(name):
    check(FILES / name, ANSWERED[name])


HEAD = "import torch.nn as nn\n"
#: the ways an import reaches a registered class, each run by the library and read by derive
SNIPPETS = {
    "import the package": "import mamba_ssm\nmodel = mamba_ssm.Mamba(d_model=18, d_state=16, d_conv=4, expand=2)",
    "module path, Mamba2": "from mamba_ssm.modules.mamba2 import Mamba2\n"
    "model = Mamba2(d_model=64, d_state=32, headdim=16, ngroups=4, expand=2, rmsnorm=False, D_has_hdim=True)",
    "aliased module": "import mamba_ssm.modules.mamba_simple as ms\nmodel = ms.Mamba(32, dt_rank=5, bias=True)",
    "subclass": HEAD + "from mamba_ssm import Mamba\n"
    "class NormedMamba(Mamba):\n"
    "    def __init__(self, d, **kw):\n"
    "        super().__init__(d_model=d, d_state=8, **kw)\n"
    "        self.norm = nn.LayerNorm(d)\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.blocks = nn.Sequential(NormedMamba(32), NormedMamba(32, conv_bias=False))\n"
    "model = Net()",
    "fla from the package": "import fla\nmodel = fla.GatedLinearAttention(hidden_size=64, num_heads=2, expand_v=2.0)",
    "fla module alias": "from fla import layers as fl\n"
    "model = fl.HGRN2Attention(hidden_size=64, num_heads=4, expand_ratio=32)",
    "fla every layer": HEAD + "from fla.layers import (DeltaNet, HGRNAttention, MultiScaleRetention, RWKV6Attention,"
    " RWKV7Attention)\n"
    "import fla.layers.gla\n"
    "model = nn.ModuleList([DeltaNet(hidden_size=64, num_heads=2), HGRNAttention(hidden_size=64),"
    " MultiScaleRetention(hidden_size=64, num_heads=2), RWKV6Attention(hidden_size=64, num_heads=2),"
    " RWKV7Attention(hidden_size=64, head_dim=16, layer_idx=0, num_hidden_layers=2),"
    " fla.layers.gla.GatedLinearAttention(hidden_size=64, num_heads=2, use_short_conv=True)])",
    "mamba_ssm LM with Mamba2": "from mamba_ssm import MambaLMHeadModel\n"
    "from mamba_ssm.models.config_mamba import MambaConfig\n"
    "cfg = MambaConfig(d_model=128, n_layer=2, vocab_size=333, ssm_cfg=dict(layer='Mamba2', d_state=32, headdim=32),"
    " tie_embeddings=False)\n"
    "model = MambaLMHeadModel(cfg)",
}


@pytest.mark.parametrize("case", sorted(SNIPPETS))
def test_import_forms(case, tmp_path):
    path = tmp_path / "model.py"
    path.write_text(SNIPPETS[case])
    check(path)
