"""The configs of block models, read back from their tensors' names and shapes.

One reader per checkpoint format, each registered beside the builder that names those tensors
(:data:`derive.blocks._shapes.SHAPE_READERS`) — transformers' ``MambaForCausalLM`` (and FalconMamba's,
whose saved tensors are the same; :mod:`derive.blocks.mamba`), ``Mamba2ForCausalLM``
(:mod:`derive.blocks.mamba2`), ``RwkvForCausalLM`` (:mod:`derive.blocks.rwkv`),
``RecurrentGemmaForCausalLM`` (:mod:`derive.blocks.griffin`) and mamba_ssm's ``MambaLMHeadModel``
(the state-spaces/mamba-* checkpoints; :mod:`derive.blocks.mamba_lm`) — each recognising its model
by a few tensor names and giving the config keys the shapes fix, as the config reader
(:data:`derive.blocks.CONFIG_MODELS`) takes them. What the shapes
cannot tell apart is said in a note, with the value taken (Mamba-2's ``n_groups`` and
``state_size`` appear only as their product). :mod:`derive.read.files.block_infer` rebuilds the model
from the config and accepts it only if every tensor is reproduced.

The sizes are read where the modelling files put them (transformers 5.23.0): Mamba's ``A_log``
(E, N), ``conv1d.weight`` (E, 1, K), ``dt_proj.weight`` (E, R) (``modeling_mamba.py`` 284–333);
Mamba-2's ``A_log`` (H), ``conv1d`` (E + 2GN channels), ``in_proj`` (2E + 2GN + H rows),
``out_proj`` (D, E) (``modeling_mamba2.py`` 373–440); RWKV's ``time_decay`` (A), ``feed_forward.key``
(F, D) (``modeling_rwkv.py`` 217–303); RecurrentGemma's ``rg_lru.input_gate_weight`` (H, W/H, W/H),
``q_proj``/``k_proj`` (H·d, D)/(H_kv·d, D), ``mlp_block.gate_proj`` (F/2, D)
(``modeling_recurrent_gemma.py`` 391–479).

>>> found = read({"rwkv.embeddings.weight": (100, 32), "rwkv.blocks.0.attention.time_decay": (32,),
...               "rwkv.blocks.0.feed_forward.key.weight": (128, 32), "head.weight": (100, 32)}, {})
>>> found.model_type, found.config["intermediate_size"], found.config["tie_word_embeddings"]
('rwkv', 128, False)
"""

from __future__ import annotations

from collections.abc import Mapping

from ...blocks._shapes import SHAPE_READERS, Inferred, Shapes, Unreadable

__all__ = ["Inferred", "Unreadable", "read"]


def read(shapes: Shapes, ties: Mapping[str, str]) -> Inferred | None:
    """The config of the first block model whose tensor names these are, or None.

    Parameters
    ----------
    shapes : mapping of str to tuple
        Name -> shape (a whole state dict or checkpoint).
    ties : mapping of str to str
        Name -> the name whose storage it shares.

    Returns
    -------
    Inferred or None

    Raises
    ------
    Unreadable
        The names are a block model's but the shapes do not give its config (the message names
        the model and the tensor).
    """
    for architecture, reader in SHAPE_READERS.items():
        try:
            found = reader(shapes, ties)
        except Unreadable as error:
            raise Unreadable(f"the tensors are named as {architecture} names them, but {error}") from None
        if found is not None:
            return found
    return None
