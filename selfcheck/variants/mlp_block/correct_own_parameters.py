"""Correct: a hand-written Affine module with its own nn.Parameter weight and bias stands in for nn.Linear."""

import math

import torch
import torch.nn.functional as F
from torch import nn

EXPECT_FAILURES = {}


class Affine(nn.Module):
    """Same parameter names and (out, in) layout as nn.Linear, so state_dict keys match."""

    def __init__(self, d_in, d_out):
        super().__init__()
        bound = 1 / math.sqrt(d_in)
        self.weight = nn.Parameter(torch.empty(d_out, d_in).uniform_(-bound, bound))
        self.bias = nn.Parameter(torch.empty(d_out).uniform_(-bound, bound))

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = Affine(hidden_dim, intermediate_dim)
        self.Wo = Affine(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wi(x))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wg = Affine(hidden_dim, intermediate_dim)
        self.Wv = Affine(hidden_dim, intermediate_dim)
        self.Wo = Affine(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        value = self.Wv(x)
        gate = self.act(self.Wg(x))
        return self.drop(self.Wo(torch.mul(value, gate)))
