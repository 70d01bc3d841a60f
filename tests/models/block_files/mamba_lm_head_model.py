"""mamba_ssm's own language model built from its config class, as the repository's benchmarks do."""

import mamba_ssm
from mamba_ssm.models.config_mamba import MambaConfig

config = MambaConfig(
    d_model=256,
    n_layer=4,
    vocab_size=1000,
    ssm_cfg={"layer": "Mamba1", "d_state": 8},
    d_intermediate=300,
    rms_norm=False,
)
model = mamba_ssm.MambaLMHeadModel(config, device="cpu")
