"""GRU-D for irregular time series with missing values (Che et al. 2018), in the style of public ports."""

import math

import torch
import torch.nn as nn


class FilterLinear(nn.Module):
    def __init__(self, in_features, out_features, filter_square_matrix, bias=True):
        """filter_square_matrix: a matrix of 0s and 1s that masks the weight."""
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.register_buffer("filter_square_matrix", filter_square_matrix)
        self.weight = nn.Parameter(torch.Tensor(out_features, in_features))
        if bias:
            self.bias = nn.Parameter(torch.Tensor(out_features))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.uniform_(-stdv, stdv)


class GRUD(nn.Module):
    def __init__(self, input_size, hidden_size, output_size, X_mean, output_last=False):
        super().__init__()

        self.hidden_size = hidden_size
        self.delta_size = input_size
        self.mask_size = input_size

        self.identity = torch.eye(input_size)
        self.register_buffer("X_mean", X_mean)

        self.zl = nn.Linear(input_size + hidden_size + self.mask_size, hidden_size)
        self.rl = nn.Linear(input_size + hidden_size + self.mask_size, hidden_size)
        self.hl = nn.Linear(input_size + hidden_size + self.mask_size, hidden_size)

        self.gamma_x_l = FilterLinear(self.delta_size, self.delta_size, self.identity)
        self.gamma_h_l = nn.Linear(self.delta_size, self.hidden_size)

        self.output_last = output_last
        self.fc = nn.Linear(self.hidden_size, output_size)
        self.bn = nn.BatchNorm1d(self.hidden_size, eps=1e-05, momentum=0.1, affine=True)
        self.drop = nn.Dropout(p=0.5)

        self.log_decay = nn.Parameter(torch.zeros(input_size))
        self.h0 = nn.Parameter(torch.randn(1, hidden_size) * 0.01, requires_grad=False)


n_features = 33
model = GRUD(n_features, 49, 2, torch.zeros(n_features))
