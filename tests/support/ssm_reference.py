"""Transcriptions of the reference code of S4D, S4, S5 and the LRU (not a test module).

None of the reference repositories is a package (state-spaces/s4 e757cef, lindermanlab/S5
3c18fdb, NicolasZucchet/minimal-LRU bbd71b1), so each class below transcribes the lines that
declare tensors, from the file and lines cited, with the reference's own control flow; torch (on
the meta device) or Flax (``jax.eval_shape`` of ``init``) then gives the names, shapes and counts
that derive's blocks are held against (``tests/blocks/test_ssm_reference.py``, and every number on
the site's block pages in ``tests/blocks/test_ssm_pages.py``). Initial values are not transcribed
(zeros or empty tensors of the same shape).
"""

from __future__ import annotations

import math
from collections import defaultdict

import torch
from torch import nn

# ----------------------------------------------------------------- S4D: models/s4/s4d.py 11-88 (e757cef)


class S4DKernel(nn.Module):  # s4d.py 11-29, register 48-57
    def __init__(self, d_model, N=64, dt_min=0.001, dt_max=0.1, lr=None):
        super().__init__()
        H = d_model
        log_dt = torch.empty(H)
        C = torch.empty(H, N // 2, dtype=torch.cfloat)
        self.C = nn.Parameter(torch.view_as_real(C))
        self.register("log_dt", log_dt, lr)
        self.register("log_A_real", torch.empty(H, N // 2), lr)
        self.register("A_imag", torch.empty(H, N // 2), lr)

    def register(self, name, tensor, lr=None):
        if lr == 0.0:
            self.register_buffer(name, tensor)
        else:
            self.register_parameter(name, nn.Parameter(tensor))


class S4D(nn.Module):  # s4d.py 62-85 (GELU, dropout and GLU hold no tensors)
    def __init__(self, d_model, d_state=64, dropout=0.0, transposed=True, **kernel_args):
        super().__init__()
        self.h, self.n = d_model, d_state
        self.D = nn.Parameter(torch.empty(self.h))
        self.kernel = S4DKernel(self.h, N=self.n, **kernel_args)
        self.output_linear = nn.Sequential(nn.Conv1d(self.h, 2 * self.h, kernel_size=1), nn.GLU(dim=-2))


# ------------------------------------------------------- S4: models/s4/s4.py (e757cef), the declaring lines


class SSMKernel(nn.Module):  # Kernel.__init__ 679-737 + register 754-765; SSMKernel.__init__ 887-929
    def __init__(self, d_model=0, channels=1, lr=None, d_state=64, dt_tie=True, rank=1, n_ssm=None, **kwargs):
        super().__init__()
        self.H, self.channels, self.lr = d_model, channels, lr
        if lr is None or isinstance(lr, float):
            self.lr_dict = defaultdict(lambda: lr)
        else:
            self.lr_dict = defaultdict(lambda: None)
            self.lr_dict.update(lr)
        self.N, self.dt_tie, self.rank = d_state, dt_tie, rank
        self.n_ssm = n_ssm if n_ssm is not None else self.H

    def register(self, name, tensor, lr=None):
        if lr == 0.0:
            self.register_buffer(name, tensor)
        else:
            self.register_parameter(name, nn.Parameter(tensor))

    def init_dt(self):  # 822-837
        return torch.empty((self.H, 1) if self.dt_tie else (self.H, self.N // 2))

    def init_ssm_dplr(self):  # 857-885, combination() returning (S, N/2), (R, S, N/2), (S, N/2)
        A = torch.empty(self.n_ssm, self.N // 2, dtype=torch.cfloat)
        P = torch.empty(self.rank, self.n_ssm, self.N // 2, dtype=torch.cfloat)
        B = torch.empty(self.n_ssm, self.N // 2, dtype=torch.cfloat)
        C = torch.empty(self.channels, self.H, self.N // 2, dtype=torch.cfloat)
        self.N //= 2
        return A, P, B, C


class SSMKernelDiag(SSMKernel):  # 992-1072
    def __init__(self, is_real=False, **kwargs):
        if is_real and "d_state" in kwargs:
            kwargs["d_state"] = kwargs["d_state"] * 2
        super().__init__(**kwargs)
        self.is_real = is_real
        inv_dt = self.init_dt()
        A, P, B, C = self.init_ssm_dplr()
        self.register_params(A, B, C, inv_dt, P)

    def register_params(self, A, B, C, inv_dt, P):
        C = C.expand(torch.broadcast_shapes(C.shape, (1, self.H, self.N)))
        B = B.unsqueeze(0)
        self.register("inv_dt", inv_dt, self.lr_dict["dt"])
        if self.is_real:
            self.register("C", C.real, self.lr_dict["C"])
            self.register("B", B.real, self.lr_dict["B"])
            self.register("A_real", A.real, self.lr_dict["A"])
        else:
            self.register("C", torch.view_as_real(C.conj().resolve_conj()), self.lr_dict["C"])
            self.register("B", torch.view_as_real(B), self.lr_dict["B"])
            self.register("A_real", A.real, self.lr_dict["A"])
            self.register("A_imag", A.imag, self.lr_dict["A"])


class SSMKernelDPLR(SSMKernelDiag):  # 1274-1317
    def register_params(self, A, B, C, inv_dt, P):
        super().register_params(A, B, C, inv_dt, P)
        self.register("P", torch.view_as_real(P), self.lr_dict["A"])
        self.register_buffer("l_kernel", torch.tensor(0))


KERNELS = {"s4d": SSMKernelDiag, "diag": SSMKernelDiag, "s4": SSMKernelDPLR, "nplr": SSMKernelDPLR}
KERNELS["dplr"] = SSMKernelDPLR  # kernel_registry, 1625-1631


class FFTConv(nn.Module):  # 1647-1699
    def __init__(
        self, d_model, l_max=None, channels=1, bidirectional=False, activation="gelu", mode="dplr", **kernel_args
    ):
        super().__init__()
        self.d_model, self.channels = d_model, channels
        if activation is not None and activation.startswith("glu"):
            channels *= 2
        self.D = nn.Parameter(torch.empty(channels, self.d_model))
        if bidirectional:
            channels *= 2
        self.kernel = KERNELS[mode](d_model=self.d_model, channels=channels, **kernel_args)

    @property
    def d_output(self):  # 1785-1787
        return self.d_model * self.channels


class S4Block(nn.Module):  # 1809-1888, LinearActivation 207-224 (nn.Linear; GLU doubles d_output)
    def __init__(self, d_model, bottleneck=None, final_act="glu", **layer_args):
        super().__init__()
        self.d_model = d_model
        if bottleneck is not None:
            self.d_model = self.d_model // bottleneck
            self.input_linear = nn.Linear(self.d_model, self.d_model)
        self.layer = FFTConv(d_model, **layer_args)
        if final_act is None:
            self.output_linear = nn.Identity()
        else:
            out = self.d_model * 2 if final_act == "glu" else self.d_model
            self.output_linear = nn.Sequential(nn.Linear(self.layer.d_output, out), nn.Identity())


def torch_tensors(module: nn.Module):
    """(parameters, buffers) as lists of (name, shape), in torch's order."""
    return (
        [(n, tuple(p.shape)) for n, p in module.named_parameters()],
        [(n, tuple(b.shape)) for n, b in module.named_buffers()],
    )


def torch_count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def s4d_reference(*args, **kwargs) -> nn.Module:
    with torch.device("meta"):
        return S4D(*args, **kwargs)


def s4_block_reference(*args, **kwargs) -> nn.Module:
    with torch.device("meta"):
        return S4Block(*args, **kwargs)


def flax_count(tensors: dict) -> int:
    return sum(math.prod(s) for s in tensors["params"].values())


# ------------------------------------------ S5: s5/ssm.py 91-227, s5/layers.py 5-53, s5/train.py 29-106 (3c18fdb)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import scipy.linalg as scipy_linalg  # noqa: E402
from flax import linen  # noqa: E402


def flax_tensors(model, x) -> dict:
    from flax.traverse_util import flatten_dict

    variables = jax.eval_shape(model.init, jax.random.PRNGKey(0), x)
    params = {k: tuple(v.shape) for k, v in flatten_dict(variables["params"], sep="/").items()}
    stats = {k: tuple(v.shape) for k, v in flatten_dict(variables.get("batch_stats", {}), sep="/").items()}
    return {"params": params, "batch_stats": stats}


class S5SSM(linen.Module):  # ssm.py 91-218, init_VinvB / init_CV from ssm_init.py 115-168
    Lambda_re_init: object
    Lambda_im_init: object
    V: object
    Vinv: object
    H: int
    P: int
    C_init: str
    conj_sym: bool = True
    bidirectional: bool = False

    def setup(self):
        local_P = 2 * self.P if self.conj_sym else self.P
        self.Lambda_re = self.param("Lambda_re", lambda rng, shape: self.Lambda_re_init, (None,))
        self.Lambda_im = self.param("Lambda_im", lambda rng, shape: self.Lambda_im_init, (None,))

        def init_VinvB(rng, shape):
            VinvB = self.Vinv @ jnp.zeros(shape)
            return jnp.concatenate((VinvB.real[..., None], VinvB.imag[..., None]), axis=-1)

        def init_CV(rng, shape):
            C_ = jnp.zeros(shape)
            CV = (C_[..., 0] + 1j * C_[..., 1]) @ self.V
            return jnp.concatenate((CV.real[..., None], CV.imag[..., None]), axis=-1)

        self.B = self.param("B", init_VinvB, (local_P, self.H))
        C_shape = (self.H, local_P, 2)
        if self.C_init == "complex_normal":
            shape = (self.H, 2 * self.P, 2) if self.bidirectional else (self.H, self.P, 2)
            self.C = self.param("C", lambda rng, s: jnp.zeros(s), shape)
        elif self.bidirectional:
            self.C1 = self.param("C1", init_CV, C_shape)
            self.C2 = self.param("C2", init_CV, C_shape)
        else:
            self.C = self.param("C", init_CV, C_shape)
        self.D = self.param("D", lambda rng, s: jnp.zeros(s), (self.H,))
        self.log_step = self.param("log_step", lambda rng, s: jnp.zeros((s[0], 1)), (self.P,))

    def __call__(self, u):
        return u * self.D


class SequenceLayer(linen.Module):  # layers.py 22-53 (BatchNorm without axis_name: no shape changes)
    ssm: object
    d_model: int
    activation: str = "gelu"
    batchnorm: bool = False

    def setup(self):
        self.seq = self.ssm()
        if self.activation in ["full_glu"]:
            self.out1 = linen.Dense(self.d_model)
            self.out2 = linen.Dense(self.d_model)
        elif self.activation in ["half_glu1", "half_glu2"]:
            self.out2 = linen.Dense(self.d_model)
        self.norm = linen.BatchNorm(use_running_average=False) if self.batchnorm else linen.LayerNorm()

    def __call__(self, x):
        x = self.norm(self.seq(x))
        if self.activation == "full_glu":
            return self.out1(x) * self.out2(x)
        return self.out2(x) if self.activation != "gelu" else x


def s5_reference(H, ssm_size, blocks, conj_sym=True, C_init="trunc_standard_normal", bidirectional=False, **layer):
    """train.py 29-106: the eigenvalues and eigenvectors sized as the script sizes them."""
    block_size = int(ssm_size / blocks)
    V = jnp.eye(block_size, dtype=jnp.complex64)  # make_DPLR_HiPPO(block_size) gives V (block, block)
    Lambda = jnp.ones(block_size, dtype=jnp.complex64)
    if conj_sym:
        block_size = block_size // 2
        ssm_size = ssm_size // 2
    Lambda, V = Lambda[:block_size], V[:, :block_size]
    Vc = V.conj().T
    Lambda = (Lambda * jnp.ones((blocks, block_size))).ravel()
    V, Vinv = scipy_linalg.block_diag(*([V] * blocks)), scipy_linalg.block_diag(*([Vc] * blocks))
    ssm = S5SSM(Lambda.real, Lambda.imag, V, Vinv, H, ssm_size, C_init, conj_sym, bidirectional)
    return SequenceLayer(lambda: ssm.clone(), H, **layer)


# ---------------------------------------------------- LRU: NicolasZucchet/minimal-LRU lru/model.py (bbd71b1)


class LRU(linen.Module):  # model.py 38-80
    d_hidden: int
    d_model: int

    def setup(self):
        zeros = lambda rng, shape: jnp.zeros(shape)  # noqa: E731
        self.theta_log = self.param("theta_log", zeros, (self.d_hidden,))
        self.nu_log = self.param("nu_log", zeros, (self.d_hidden,))
        self.gamma_log = self.param(
            "gamma_log", lambda rng, lamb: jnp.zeros_like(lamb[0]), (self.nu_log, self.theta_log)
        )
        self.B_re = self.param("B_re", zeros, (self.d_hidden, self.d_model))
        self.B_im = self.param("B_im", zeros, (self.d_hidden, self.d_model))
        self.C_re = self.param("C_re", zeros, (self.d_model, self.d_hidden))
        self.C_im = self.param("C_im", zeros, (self.d_model, self.d_hidden))
        self.D = self.param("D", zeros, (self.d_model,))

    def __call__(self, x):
        return x * self.D


class LRULayer(linen.Module):  # model.py 98-132
    lru: object
    d_model: int
    norm: str = "layer"

    def setup(self):
        self.seq = self.lru()
        self.out1 = linen.Dense(self.d_model)
        self.out2 = linen.Dense(self.d_model)
        if self.norm in ["layer"]:
            self.normalization = linen.LayerNorm()
        else:
            self.normalization = linen.BatchNorm(use_running_average=False)

    def __call__(self, x):
        x = self.seq(x)
        return self.normalization(self.out1(x) * self.out2(x))


def lru_layer_reference(d_hidden: int, d_model: int, norm: str = "layer") -> dict:
    """The LRU layer's Flax variables (``params``, ``batch_stats``: name -> shape)."""
    return flax_tensors(LRULayer(lambda: LRU(d_hidden, d_model), d_model, norm), jnp.zeros((3, d_model)))


def s5_layer_reference(h: int, size: int, blocks: int, **options) -> dict:
    """The S5 layer's Flax variables, sized as ``s5/train.py`` sizes them."""
    ssm = {k: options[k] for k in ("conj_sym", "C_init", "bidirectional") if k in options}
    layer = {k: v for k, v in options.items() if k not in ssm}
    return flax_tensors(s5_reference(h, size, blocks, **ssm, **layer), jnp.zeros((3, h)))
