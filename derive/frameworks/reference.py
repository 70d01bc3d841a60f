"""The cells of papers without a framework class, laid out with PyTorch's names (``torch.nn.LSTM``'s).

minGRU and minLSTM (with their biases, as the paper writes them), IndRNN, QRNN and the
layer-normalised LSTM are not classes of ``torch.nn`` or of any framework derive follows; their
tensors are named here as PyTorch names an RNN's (``weight_ih_l<k>``, ``bias_ih_l<k>``, suffix
``_reverse``), so that every cell can be counted, stacked and compared with the same calls.
The numbers follow from each paper's equations (the source of each class).
"""

from __future__ import annotations

from ..engine.conventions import Convention, TensorLayout
from .pytorch import PYTORCH
from .registry import YES_NO, CellSpec, Framework, register

__all__ = ["REFERENCE"]

#: PyTorch's tensors (``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``, ``weight_hr``), plus
#: IndRNN's recurrent vector as ``weight_hh`` (H,) and the LayerNorm gains and shifts as
#: ``ln_ih_weight``/``ln_ih_bias`` (4H,), ``ln_hh_weight``/``ln_hh_bias`` (4H,),
#: ``ln_c_weight``/``ln_c_bias`` (H,).
REFERENCE = Convention(
    name="Papers, PyTorch's names",
    tensors=(
        TensorLayout("weight_ih", "weight", ("ih",)),
        TensorLayout("weight_hh", "weight", ("hh",)),
        TensorLayout("weight_hh", "peephole", ("hh",)),
        TensorLayout("bias_ih", "bias", ("ih",)),
        TensorLayout("bias_hh", "bias", ("hh",)),
        TensorLayout("weight_hr", "weight", ("hr",)),
        TensorLayout("ln_ih_weight", "gain", ("ln_ih",)),
        TensorLayout("ln_ih_bias", "gain", ("ln_ih_shift",)),
        TensorLayout("ln_hh_weight", "gain", ("ln_hh",)),
        TensorLayout("ln_hh_bias", "gain", ("ln_hh_shift",)),
        TensorLayout("ln_c_weight", "gain", ("ln_c",)),
        TensorLayout("ln_c_bias", "gain", ("ln_c_shift",)),
    ),
    layer_name=PYTORCH.layer_name,
    source="the papers (see each class)",
)

_SOURCES = {
    "minGRU": "Feng et al. 2024, arXiv:2410.01201, §3.1.3",
    "minLSTM": "Feng et al. 2024, arXiv:2410.01201, §3.2.3",
    "IndRNN": "Li et al. 2018, arXiv:1803.04831, eq. (2)",
    "QRNN": "Bradbury et al. 2017, arXiv:1611.01576, eqs. (1)-(4); torchqrnn/qrnn.py QRNNLayer",
    "LayerNormLSTM": "Ba et al. 2016, arXiv:1607.06450, eqs. (20)-(22)",
}

register(
    Framework(
        "reference",
        "Papers (PyTorch's names)",
        (
            CellSpec(
                "minGRU",
                "MINGRU",
                "mingru",
                REFERENCE,
                "layer",
                {"bias": YES_NO, "proj_size": ()},
                proj_below_hidden=False,
            ),
            CellSpec(
                "minLSTM",
                "MINLSTM",
                "minlstm",
                REFERENCE,
                "layer",
                {"bias": YES_NO, "proj_size": ()},
                proj_below_hidden=False,
            ),
            CellSpec(
                "IndRNN",
                "INDRNN",
                "indrnn",
                REFERENCE,
                "layer",
                {"bias": YES_NO, "nonlinearity": ("relu", "tanh")},
            ),
            CellSpec(
                "QRNN",
                "QRNN",
                "qrnn",
                REFERENCE,
                "layer",
                {"bias": YES_NO, "window": (), "pooling": ("fo", "f", "ifo")},
            ),
            CellSpec(
                "LayerNormLSTM",
                "LNLSTM",
                "lnlstm",
                REFERENCE,
                "layer",
                {"bias": YES_NO},
            ),
        ),
        (),
        "; ".join(f"{k}: {v}" for k, v in _SOURCES.items()),
        order=90,
    )
)
