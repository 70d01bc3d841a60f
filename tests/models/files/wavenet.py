"""A WaveNet-style stack of dilated causal convolutions with residual and skip connections."""

import torch.nn as nn


class CausalConv1d(nn.Conv1d):
    def __init__(self, in_channels, out_channels, kernel_size, dilation=1, **kwargs):
        self.__padding = (kernel_size - 1) * dilation
        super().__init__(in_channels, out_channels, kernel_size, padding=self.__padding, dilation=dilation, **kwargs)


class ResidualBlock(nn.Module):
    def __init__(self, residual_channels, gate_channels, skip_channels, kernel_size, dilation, cond_channels=None):
        super().__init__()
        self.dilated = CausalConv1d(residual_channels, gate_channels, kernel_size, dilation=dilation)
        if cond_channels is not None:
            self.cond = nn.Conv1d(cond_channels, gate_channels, 1, bias=False)
        else:
            self.cond = None
        half = gate_channels // 2
        self.res = nn.Conv1d(half, residual_channels, 1)
        self.skip = nn.Conv1d(half, skip_channels, 1)


class WaveNet(nn.Module):
    def __init__(
        self,
        n_classes=256,
        layers=10,
        stacks=3,
        residual_channels=64,
        gate_channels=128,
        skip_channels=64,
        kernel_size=2,
        cond_channels=80,
    ):
        super().__init__()
        self.first = CausalConv1d(n_classes, residual_channels, 1)
        dilations = [2**i for i in range(layers)] * stacks
        self.blocks = nn.ModuleList()
        for d in dilations:
            self.blocks.append(
                ResidualBlock(residual_channels, gate_channels, skip_channels, kernel_size, d, cond_channels)
            )
        self.last = nn.Sequential(
            nn.ReLU(inplace=True),
            nn.Conv1d(skip_channels, skip_channels, 1),
            nn.ReLU(inplace=True),
            nn.Conv1d(skip_channels, n_classes, 1),
        )
        self.receptive_field = sum(dilations) * (kernel_size - 1) + 1


model = WaveNet(layers=8, stacks=2, cond_channels=None)
