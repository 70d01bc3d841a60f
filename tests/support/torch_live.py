"""Torch constructions the wiring tests and pages are held against (expected values come from these
torch objects, never from the derivation): the counting helpers, two independent stacks (simple
concat), tied input weights, and per-layer Keras-like bidirectional pairs."""

from __future__ import annotations

import torch
from torch import nn

MODES = {"RNN_TANH": nn.RNN, "LSTM": nn.LSTM, "GRU": nn.GRU}


def torch_shapes(module: nn.Module) -> dict:
    """Name -> shape of every distinct parameter (``named_parameters`` drops a shared one's second name)."""
    return {name: tuple(p.shape) for name, p in module.named_parameters()}


def torch_count(module: nn.Module) -> int:
    """``sum(p.numel() for p in module.parameters())``: each shared tensor once."""
    return sum(p.numel() for p in module.parameters())


def unidirectional(mode, i, h, layers, proj=0, bias=True) -> nn.Module:
    extra = {"proj_size": proj} if proj else {}
    return MODES[mode](i, h, layers, bias=bias, **extra)


def reverse_names(shapes: dict) -> dict:
    return {f"{name}_reverse": shape for name, shape in shapes.items()}


# --------------------------------------------------------------------------- torch constructions


class TwoStacks(nn.Module):
    """Simple concat: two independent unidirectional stacks, joined at the top."""

    def __init__(
        self,
        mode,
        i,
        h,
        layers,
        proj=0,
        bias=True,
        classes=0,
        posterior="forward",
        output=0,
        labels_into_states=True,
        labels_into_output=False,
    ):
        super().__init__()
        into_states = classes if labels_into_states else 0
        forward_in = i + (into_states if posterior == "forward" else 0)
        backward_in = i + (into_states if posterior == "backward" else 0)
        self.forward_stack = unidirectional(mode, forward_in, h, layers, proj, bias)
        self.backward_stack = unidirectional(mode, backward_in, h, layers, proj, bias)
        top = 2 * (proj or h) + (classes if labels_into_output else 0)
        self.output = nn.Linear(top, output) if output else None
        self.classes, self.posterior = into_states, posterior
        self.labels_into_output = labels_into_output

    def forward(self, x, labels=None):
        """x: (T, N, I); labels: (T, N, K) one-hot of the label each step reads (c_{t-1} or c_{t+1})."""
        fx = bx = x
        if self.classes and labels is not None and self.posterior == "forward":
            fx = torch.cat([x, labels], dim=-1)
        if self.classes and labels is not None and self.posterior == "backward":
            bx = torch.cat([x, labels], dim=-1)
        forward_out, _ = self.forward_stack(fx)
        backward_out, _ = self.backward_stack(torch.flip(bx, dims=[0]))
        top = torch.cat([forward_out, torch.flip(backward_out, dims=[0])], dim=-1)
        if self.output is None:
            return top
        if self.labels_into_output:
            top = torch.cat([top, labels], dim=-1)
        return self.output(top)

    def derive_names(self) -> dict:
        """Parameter shapes under the derivation's names: forward as is, backward ``*_reverse``, output."""
        shapes = torch_shapes(self.forward_stack) | reverse_names(torch_shapes(self.backward_stack))
        if self.output is not None:
            shapes |= {f"output.{n}": s for n, s in torch_shapes(self.output).items()}
        return shapes


def tied(mode, i, h, layers, proj=0, bias=True) -> nn.Module:
    """A bidirectional torch module whose reverse input weights are the forward ones, layer by layer."""
    extra = {"proj_size": proj} if proj else {}
    module = MODES[mode](i, h, layers, bias=bias, bidirectional=True, **extra)
    for layer in range(layers):
        setattr(module, f"weight_ih_l{layer}_reverse", getattr(module, f"weight_ih_l{layer}"))
    return module


class KerasLikeStack(nn.Module):
    """One bidirectional layer per level: a forward and a backward single-layer module, merged."""

    def __init__(self, mode, i, h, layers, merge, bias=True):
        super().__init__()
        self.merge = merge
        width = i
        self.pairs = nn.ModuleList()
        for _ in range(layers):
            self.pairs.append(nn.ModuleList([unidirectional(mode, width, h, 1, bias=bias) for _ in range(2)]))
            width = 2 * h if merge == "concat" else h

    def forward(self, x):
        for forward, backward in self.pairs:
            f, _ = forward(x)
            b, _ = backward(torch.flip(x, dims=[0]))
            b = torch.flip(b, dims=[0])
            x = {
                "concat": lambda: torch.cat([f, b], -1),
                "sum": lambda: f + b,
                "mul": lambda: f * b,
                "ave": lambda: (f + b) / 2,
            }[self.merge]()
        return x

    def derive_names(self) -> dict:
        out = {}
        for layer, (forward, backward) in enumerate(self.pairs):
            for suffix, module in (("", forward), ("_reverse", backward)):
                out |= {n.replace("_l0", f"_l{layer}") + suffix: s for n, s in torch_shapes(module).items()}
        return out


def torch_module(cls: str, *args, **kwargs) -> nn.Module:
    """``torch.nn.<cls>(*args, **kwargs)`` on the meta device: shapes without allocating a weight."""
    return getattr(nn, cls)(*args, device="meta", **kwargs)
