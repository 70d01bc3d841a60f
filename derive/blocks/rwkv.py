"""RWKV-4: the time-mix (WKV) and channel-mix block, as transformers' ``RwkvForCausalLM`` and as
BlinkDL's RWKV-LM names it, and the BlinkDL model frame every RWKV version shares.

One block, D = ``hidden_size`` (BlinkDL ``n_embd``), A = ``attention_hidden_size`` (``dim_att``,
default D), F = ``intermediate_size`` (``dim_ffn``): the time mix interpolates each input with the
previous step's (``time_mix_*``, shape (1, 1, D)), projects to r, k, v (D → A, no bias), runs the WKV
recurrence with a per-channel decay ``time_decay`` and bonus ``time_first`` (A), and projects back
(A → D); the channel mix is a squared-ReLU MLP D → F → D gated by a sigmoid receptance D → D. Two
LayerNorms per block, a third (``pre_ln``/``ln0``) on block 0 only.

Per block 4AD + 2A + 2FD + D² + 9D; the model adds V·D twice (embedding and an untied head) and the
final LayerNorm. Sources: transformers 5.23.0 ``models/rwkv/modeling_rwkv.py`` 217–245
(``RwkvSelfAttention``), 287–303 (``RwkvFeedForward``), 325–338 (``RwkvBlock``), 487–493
(``RwkvModel``), 667–673 (``RwkvForCausalLM``, ``_tied_weights_keys``); ``configuration_rwkv.py``
54–71 (defaults: A = D, F = 4D, untied); BlinkDL/RWKV-LM ``RWKV-v4neo/src/model.py`` 460–590, 627–640
(``RWKV_TimeMix``, ``RWKV_ChannelMix``, ``Block``: ``ln0`` on block 0) and ``RWKV-v4neo/train.py``
166–172 (``dim_ffn`` = 4·``n_embd`` unless ``my_testing`` has ``r3``).

A token's matmul FLOPs at decode (:func:`decode_flops`, transformers' classes): the projections alone,
8AD for the time mix and 4FD + 2D² for the channel mix. One token always runs the torch recurrence,
the CUDA kernel or not (``rwkv_linear_attention``, ``modeling_rwkv.py`` 206-215), and its WKV step
(``rwkv_linear_attention_cpu``, 162-203) and token shift are element-wise. For one sequence only:
at a batch of N the one-token step mixes the (N, 1, D) input with the (N, D) shifted state
(``modeling_rwkv.py`` 251 and 256, 307 and 312), which broadcasts to (N, N, D), so every later
product runs N × N rows — N times one sequence's, and logits of shape (N, N, V) — and derive
leaves the FLOPs of a batch other than one underived (:data:`BATCH_ONE_REASON`).

>>> from derive.tree import count
>>> count(rwkv_for_causal_lm({"vocab_size": 50277, "hidden_size": 768, "num_hidden_layers": 12}))
169342464
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..engine.constructors import Constructor, register
from ..layers.embedding import embedding
from ..layers.linear import linear
from ..layers.norm import layer_norm
from ..layers.token_flops import projections
from ..layers.token_flops import register as register_flops
from ..tree import Dim, Formula, Module, Param, State
from . import register_config
from ._keys import config_constructor, flag, formula, is_int, recipe, size
from ._shapes import Inferred, Shapes, dims, layer_count, register_shapes, tied
from .hf_config import Keys

__all__ = [
    "EQUATIONS",
    "SOURCE",
    "mix",
    "block_frame",
    "blinkdl_model",
    "rwkv4_block",
    "rwkv4_blinkdl",
    "rwkv_for_causal_lm",
    "ffn_width",
    "transformers_state",
    "decode_flops",
    "BATCH_ONE_REASON",
    "LETTERS",
]

#: Where each convention is read from (shown on the site).
SOURCE = {
    "transformers": "transformers 5.23.0 models/rwkv/modeling_rwkv.py 217-358, 487-495, 667-673",
    "blinkdl": "BlinkDL/RWKV-LM RWKV-v4neo/src/model.py 460-640, train.py 166-172",
}

#: The RWKV-4 update (Peng et al. 2023, eqs. 11-17), in the tensors' names.
EQUATIONS = (
    r"x'_t = \mu \odot x_t + (1-\mu) \odot x_{t-1} \quad (\mu: \texttt{time\_mix\_*},\ (1,1,D))",
    r"r_t = W_r x'_t,\quad k_t = W_k x'_t,\quad v_t = W_v x'_t \quad (W: A \times D)",
    r"\mathrm{wkv}_t = \frac{\sum_{i<t} e^{-(t-1-i)w + k_i} v_i + e^{u + k_t} v_t}"
    r"{\sum_{i<t} e^{-(t-1-i)w + k_i} + e^{u + k_t}} \quad (w: \texttt{time\_decay},\ u: \texttt{time\_first})",
    r"o_t = W_o\,(\sigma(r_t) \odot \mathrm{wkv}_t) \quad (W_o: D \times A)",
    r"\text{channel mix: } \sigma(W_{r'} x''_t) \odot W_v' \max(W_k' x''_t, 0)^2"
    r" \quad (W_k': F \times D,\ W_v': D \times F,\ W_{r'}: D \times D)",
)

#: Config keys and the letters of the closed form.
LETTERS = {
    "vocab_size": "V",
    "hidden_size": "D",
    "num_hidden_layers": "L",
    "attention_hidden_size": "A",
    "intermediate_size": "F",
}

_NAMES: dict[str, dict[str, Any]] = {
    "transformers": {
        "first": "pre_ln",
        "att": "attention",
        "ffn": "feed_forward",
        "mix": ("time_mix_key", "time_mix_value", "time_mix_receptance"),
        "types": ("RwkvBlock", "RwkvSelfAttention", "RwkvFeedForward"),
    },
    "blinkdl": {
        "first": "ln0",
        "att": "att",
        "ffn": "ffn",
        "mix": ("time_mix_k", "time_mix_v", "time_mix_r"),
        "types": ("Block", "RWKV_TimeMix", "RWKV_ChannelMix"),
    },
}


def mix(name: str, width: Dim) -> Param:
    """A token-shift interpolation vector as RWKV stores it: shape (1, 1, width).

    Parameters
    ----------
    name : str
    width : int or sympy.Expr

    Returns
    -------
    derive.tree.Param
    """
    return Param(name, (1, 1, width))


def ffn_width(n_embd: Dim, ratio: str) -> Dim:
    """BlinkDL's default channel-mix width ``dim_ffn``.

    Parameters
    ----------
    n_embd : int or sympy.Expr
        C.
    ratio : {"3.5", "4"}
        ``"3.5"``: ``int((n_embd * 3.5) // 32 * 32)``, RWKV-5 and RWKV-6 (``RWKV-v5/train.py`` 125–129;
        rounded down to a multiple of 32); ``"4"``: ``n_embd * 4`` (RWKV-4, ``RWKV-v4neo/train.py``
        172; RWKV-7's channel mix, ``RWKV-v7/train_temp/src/model.py`` 719).

    Returns
    -------
    int or sympy.Expr

    Raises
    ------
    ValueError
        3.5 with a symbolic C (``// 32 * 32`` of a letter is not a polynomial: give ``dim_ffn``).

    Examples
    --------
    >>> ffn_width(2560, "3.5"), ffn_width(2560, "4"), ffn_width(1000, "3.5")
    (8960, 10240, 3488)
    """
    if ratio == "4":
        return n_embd * 4
    if not is_int(n_embd):
        raise ValueError("dim_ffn = int((n_embd * 3.5) // 32 * 32) needs an integer n_embd; give dim_ffn as a size")
    return int((n_embd * 3.5) // 32 * 32)


def transformers_state(hidden_size: Dim) -> tuple[tuple[State, ...], tuple[State, ...]]:
    """The slices of transformers' RWKV ``state`` one block keeps: (time mix's, channel mix's).

    ``RwkvModel.forward`` allocates ``state`` as five tensors of shape (batch, hidden_size,
    num_hidden_layers) — ``i <= 1`` in the model's dtype, the others float32 whatever the model's
    dtype (``modeling_rwkv.py`` 561-569) — and block ``i`` reads and writes slice ``[:, :, i]``:
    the channel mix ``state[0]`` (its previous input, 306-320), the time mix ``state[1]`` (its
    previous input, 250-264) and ``state[2]``, ``state[3]``, ``state[4]`` (the WKV numerator,
    denominator and running maximum, 269-282). They are ``hidden_size`` wide even when
    ``attention_hidden_size`` differs (the forward with ``use_cache=True`` then fails in
    transformers: ``rwkv_linear_attention_cpu`` adds (batch, A) keys to (batch, D) states).

    Parameters
    ----------
    hidden_size : int or sympy.Expr
        D.

    Returns
    -------
    (tuple of State, tuple of State)
        The time mix's four slices and the channel mix's one, each (batch, D).

    Examples
    --------
    >>> att, ffn = transformers_state(16)
    >>> [(s.name, s.dtype) for s in att + ffn]  # doctest: +NORMALIZE_WHITESPACE
    [('state[1]', None), ('state[2]', 'float32'), ('state[3]', 'float32'), ('state[4]', 'float32'),
     ('state[0]', None)]
    """
    att: tuple[State, ...] = (State("state[1]", ("batch", hidden_size)),)
    att += tuple(State(f"state[{i}]", ("batch", hidden_size), "float32") for i in (2, 3, 4))
    return att, (State("state[0]", ("batch", hidden_size)),)


def rwkv4_block(hidden_size: Dim, attention_hidden_size: Dim, intermediate_size: Dim, *, first: bool = False,
                spelling: str = "transformers", name: str = "") -> Module:  # fmt: skip
    """One RWKV-4 block: LayerNorms, time mix and channel mix (block 0 adds ``pre_ln``/``ln0``).

    Parameters
    ----------
    hidden_size, attention_hidden_size, intermediate_size : int or sympy.Expr
        D, A, F.
    first : bool, default False
        Block 0 (with the extra LayerNorm).
    spelling : {"transformers", "blinkdl"}
    name : str

    Returns
    -------
    derive.tree.Module
        4AD + 2A + 2FD + D² + 9D parameters (+ 2D on block 0); transformers' spelling keeps
        :func:`transformers_state` on ``attention`` and ``feed_forward``.
    """
    n = _NAMES[spelling]
    d, a, f = hidden_size, attention_hidden_size, intermediate_size
    att_state, ffn_state = transformers_state(d) if spelling == "transformers" else ((), ())
    att = Module(
        n["att"],
        n["types"][1],
        (Param("time_decay", (a,)), Param("time_first", (a,)), *(mix(m, d) for m in n["mix"])),
        (
            linear(d, a, False, name="key"),
            linear(d, a, False, name="value"),
            linear(d, a, False, name="receptance"),
            linear(a, d, False, name="output"),
        ),
        cache=att_state,
    )
    ffn = Module(
        n["ffn"],
        n["types"][2],
        (mix(n["mix"][0], d), mix(n["mix"][2], d)),
        (linear(d, f, False, name="key"), linear(d, d, False, name="receptance"), linear(f, d, False, name="value")),
        cache=ffn_state,
    )
    return block_frame(
        d,
        att,
        ffn,
        first=first,
        name=name,
        spelling=spelling,
        formula=recipe(
            rwkv4_block,
            {"hidden_size": d, "attention_hidden_size": a, "intermediate_size": f},
            {"hidden_size": "D", "attention_hidden_size": "A", "intermediate_size": "F"},
            first=first,
            spelling=spelling,
        ),  # fmt: skip
    )


def decode_flops(module: Module, tokens: Dim) -> Dim:
    """Matmul FLOPs of one token through transformers' ``RwkvSelfAttention`` (8AD) or ``RwkvFeedForward``
    (4FD + 2D²) at decode: its projections (see the module's docstring).

    Parameters
    ----------
    module : derive.tree.Module
        The time mix or the channel mix of :func:`rwkv4_block` (spelling "transformers").
    tokens : int or sympy.Expr
        Unused: the cost does not grow with the sequence.

    Returns
    -------
    int or sympy.Expr
        Units: FLOPs (a multiply-add is 2).
    """
    return projections(module, tokens)


#: Why :func:`decode_flops` holds for a batch of one sequence only (see the module's docstring).
BATCH_ONE_REASON = (
    "transformers' one-token step broadcasts a batch of N to N x N rows (modeling_rwkv.py 251, 256, 307, 312), "
    "N times one sequence's products"
)

for _mix in _NAMES["transformers"]["types"][1:]:
    register_flops(_mix, decode_flops, batch_one=BATCH_ONE_REASON)


def block_frame(n_embd: Dim, att: Module, ffn: Module, *, first: bool, name: str, spelling: str = "blinkdl",
                type: str | None = None, formula: Formula | None = None) -> Module:  # fmt: skip
    """A block around its time mix and channel mix: two LayerNorms, a third on block 0.

    BlinkDL's ``Block`` registers ``ln1``, ``ln2`` and then ``ln0`` (so its checkpoints list them in
    that order: ``RWKV-v5/src/model.py`` 1026–1030); transformers' ``RwkvBlock`` registers ``pre_ln``
    first (``modeling_rwkv.py`` 331–335).

    Parameters
    ----------
    n_embd : int or sympy.Expr
    att, ffn : derive.tree.Module
    first : bool
        Block 0.
    name : str
    spelling : {"blinkdl", "transformers"}
    type : str, optional
        The class name (default by spelling).
    formula : derive.tree.Formula, optional

    Returns
    -------
    derive.tree.Module
        One row of a per-layer table.
    """
    n = _NAMES[spelling]
    norms: tuple[Module, ...] = (layer_norm((n_embd,), name="ln1"), layer_norm((n_embd,), name="ln2"))
    if first:
        zero = layer_norm((n_embd,), name=n["first"])
        norms = (zero, *norms) if spelling == "transformers" else (*norms, zero)
    parts = (att.replace(part="recurrent mixers"), ffn.replace(part="MLP"))  # time mix, channel mix
    return Module(name, type or n["types"][0], children=(*norms, *parts), row=True, formula=formula)


def blinkdl_model(vocab_size: Dim, n_embd: Dim, n_layer: Dim, block: Callable[[bool, str], Module] | None, *,
                  type: str = "RWKV", prefix: str = "", names: tuple[str, str, str, str] = ("emb", "blocks", "ln_out", "head"),
                  tie: str | None = None, config: Mapping[str, Any] | None = None, norm_bias: bool = True,
                  blocks: tuple[Module, ...] | None = None) -> Module:  # fmt: skip
    """The frame every RWKV model shares: embedding, blocks (block 0 apart: its extra LayerNorm, and
    in RWKV-7 its value path), a final LayerNorm and an untied head.

    Parameters
    ----------
    vocab_size, n_embd : int or sympy.Expr
        V, C.
    n_layer : int or sympy.Expr
        L (0 or more; symbolic: at least 1).
    block : callable
        ``block(first, name) -> Module``: block 0 (first True) and the others.
    type : str
        The model's class name.
    prefix : str
        The name of the inner model holding embedding, blocks and final norm (transformers:
        ``"rwkv"``, fla: ``"model"``); "" for BlinkDL, whose model holds them itself.
    names : (str, str, str, str)
        Embedding, block list, final norm and head names.
    tie : str or None
        The full name of the embedding the head is tied to, or None for an untied head.
    config : mapping, optional
        The config as resolved (every key that shapes the model, defaults filled), kept with the model.
    norm_bias : bool, default True
        The final LayerNorm's bias (fla's ``norm_bias``).
    blocks : tuple of Module, optional
        The blocks one by one (when they differ beyond block 0); ``block`` is then not called.

    Returns
    -------
    derive.tree.Module
    """
    emb, blocks_name, ln_out, head = names
    layers: tuple[Module, ...] = () if blocks is None else blocks
    if blocks is None and n_layer != 0:
        assert block is not None
        layers = (block(True, "0"),)
        rest = n_layer - 1
        if rest != 0:
            layers += (block(False, "{k}").with_repeat(rest, start=1),)
    body = (
        embedding(vocab_size, n_embd, name=emb),
        Module(blocks_name, "ModuleList", children=layers),
        layer_norm((n_embd,), bias=norm_bias, name=ln_out),
    )
    head_params = (Param("weight", (vocab_size, n_embd), tied_to=tie),)
    lm_head = Module(head, "Linear", head_params, part="head")
    children = (
        (Module(prefix, type.replace("ForCausalLM", "Model"), children=body), lm_head) if prefix else (*body, lm_head)
    )
    return Module("", type, children=children, config=dict(config or {}))


#: ``RwkvConfig``'s every key at transformers 5.23.0 (configuration_rwkv.py 54-71): the shape keys with their
#: defaults (None: derived from ``hidden_size``), the others with why they shape nothing; ``max_position_embeddings``
#: is its ``attribute_map`` name of ``context_length``.
KEYS = Keys(
    "RwkvConfig",
    {"vocab_size": 50277, "hidden_size": 4096, "num_hidden_layers": 32, "attention_hidden_size": None,
     "intermediate_size": None, "tie_word_embeddings": False},
    {
        "context_length": "the longest sequence the CUDA kernel is loaded for (modeling_rwkv.py 221): no tensor",
        "layer_norm_epsilon": "an epsilon of the LayerNorms",
        "rescale_every": "halves the weights every few layers at inference (a rescaling of the same tensors): no tensor",
    },
    {"max_position_embeddings": "context_length"},
)  # fmt: skip


@register_config(
    "rwkv",
    keys=KEYS,
    architecture="RwkvForCausalLM",
    source="transformers 5.23.0 models/rwkv/configuration_rwkv.py 54-71, modeling_rwkv.py 217-358, 487-495, 667-673",
)
def rwkv_for_causal_lm(config: Mapping[str, Any]) -> Module:
    """The model ``AutoModelForCausalLM.from_config(RwkvConfig(**config))`` builds, named as transformers
    names it (``rwkv.blocks.0.attention.time_decay``, ``head.weight``).

    Parameters
    ----------
    config : mapping
        ``RwkvConfig`` keys: ``vocab_size`` (50277), ``hidden_size`` (4096), ``num_hidden_layers`` (32),
        ``attention_hidden_size`` (= hidden_size), ``intermediate_size`` (= 4·hidden_size),
        ``tie_word_embeddings`` (False); other keys add no parameters. Sizes may be SymPy symbols.

    Returns
    -------
    derive.tree.Module
        With its closed form in the config's letters (V, D, L, A, F) as ``formula`` and the config
        resolved (the keys that shape it, defaults filled) as ``config``.

    Raises
    ------
    ValueError
        A size key that is not a positive integer (``num_hidden_layers`` may be 0), naming it.
    """
    KEYS.resolve(config)  # an alias that disagrees with the key it names: refused
    vocab = size(config, "vocab_size", 50277)
    d = size(config, "hidden_size", 4096)
    layers = size(config, "num_hidden_layers", 32, minimum=0)
    a = size(config, "attention_hidden_size", d)
    f = size(config, "intermediate_size", 4 * d)
    tied = flag(config, "tie_word_embeddings", False)
    shape = {"vocab_size": vocab, "hidden_size": d, "num_hidden_layers": layers, "attention_hidden_size": a,
             "intermediate_size": f, "tie_word_embeddings": tied}  # fmt: skip
    model = blinkdl_model(
        vocab,
        d,
        layers,
        lambda first, name: rwkv4_block(d, a, f, first=first, name=name),
        type="RwkvForCausalLM",
        prefix="rwkv",
        names=("embeddings", "blocks", "ln_out", "head"),
        tie="rwkv.embeddings.weight" if tied else None,
        config={**config, **shape},
    )
    return model.replace(formula=formula(rwkv_for_causal_lm, config, LETTERS))


def rwkv4_blinkdl(vocab_size: Dim, n_embd: Dim, n_layer: Dim, *, dim_att: Dim | None = None,
                  dim_ffn: Dim | None = None) -> Module:  # fmt: skip
    """BlinkDL's RWKV-4 model (``RWKV-v4neo``), named as its ``.pth`` checkpoints name it
    (``emb.weight``, ``blocks.0.ln0.weight``, ``blocks.0.att.time_mix_k``, ``head.weight``).

    Parameters
    ----------
    vocab_size, n_embd, n_layer : int or sympy.Expr
    dim_att : int or sympy.Expr, optional
        Default ``n_embd``.
    dim_ffn : int or sympy.Expr, optional
        Default ``4·n_embd`` (``RWKV-v4neo/train.py`` 172).

    Returns
    -------
    derive.tree.Module
        The same count as :func:`rwkv_for_causal_lm` (transformers renames the tensors only:
        ``convert_rwkv_checkpoint_to_hf.py``).

    Examples
    --------
    >>> rwkv4_blinkdl(50277, 768, 12).count
    169342464
    """
    a = n_embd if dim_att is None else dim_att
    f = ffn_width(n_embd, "4") if dim_ffn is None else dim_ffn
    return blinkdl_model(
        vocab_size,
        n_embd,
        n_layer,
        lambda first, name: rwkv4_block(n_embd, a, f, first=first, spelling="blinkdl", name=name),
    )


register(
    Constructor(
        "transformers",
        "RwkvConfig",
        config_constructor("RwkvConfig", rwkv_for_causal_lm),
        prefixes=("", "transformers.", "transformers.models.rwkv."),
        module_types=("transformers.models.rwkv.configuration_rwkv",),
        source="transformers 5.23.0 models/rwkv/configuration_rwkv.py 54-71",
    )
)


# --------------------------------------------------------------------------- the way back: a checkpoint's tensors -> the config


@register_shapes("RwkvForCausalLM")
def rwkv_hf(shapes: Shapes, ties: Mapping[str, str]) -> Inferred | None:
    """``RwkvForCausalLM`` (RWKV-4).

    Parameters
    ----------
    shapes : mapping of str -> tuple of int
        The checkpoint's tensors, by name.
    ties : mapping of str -> str
        Tensor name -> the name it shares its storage with.

    Returns
    -------
    Inferred or None
        The inferred config, or None when the tensors are not this model's.
    """
    if "rwkv.embeddings.weight" not in shapes or "rwkv.blocks.0.attention.time_decay" not in shapes:
        return None
    vocab, d = dims(shapes, "rwkv.embeddings.weight", 2)
    config = {
        "model_type": "rwkv",
        "vocab_size": vocab,
        "hidden_size": d,
        "num_hidden_layers": layer_count(shapes, "rwkv.blocks."),
        "attention_hidden_size": dims(shapes, "rwkv.blocks.0.attention.time_decay", 1)[0],
        "intermediate_size": dims(shapes, "rwkv.blocks.0.feed_forward.key.weight", 2)[0],
        "tie_word_embeddings": tied(shapes, ties, "head.weight", "rwkv.embeddings.weight"),
    }
    return Inferred("rwkv", config, head="head.weight", embedding="rwkv.embeddings.weight")
