"""Correct: parameters counted on nn.Linear layers built on the meta device; the width by bisection."""

import torch
from torch import nn

EXPECT_FAILURES = {}


def _count(shapes, bias):
    with torch.device("meta"):  # shapes only: no memory, no initialisation
        layers = [nn.Linear(n_in, n_out, bias=bias) for n_in, n_out in shapes]
    return sum(p.numel() for layer in layers for p in layer.parameters())


def mlp_param_count(hidden_dim, intermediate_dim, bias=True):
    return _count([(hidden_dim, intermediate_dim), (intermediate_dim, hidden_dim)], bias)


def glu_param_count(hidden_dim, intermediate_dim, bias=True):
    return _count([(hidden_dim, intermediate_dim)] * 2 + [(intermediate_dim, hidden_dim)], bias)


def mlp_forward_flops(hidden_dim, intermediate_dim, bias=True):
    h, i = hidden_dim, intermediate_dim
    return 2 * h * i + 2 * i * h + (i + h) * bias + i


def glu_forward_flops(hidden_dim, intermediate_dim, bias=True):
    h, i = hidden_dim, intermediate_dim
    return 2 * h * i * 2 + 2 * i * h + (2 * i + h) * bias + i + i


def mlp_backward_flops(hidden_dim, intermediate_dim, bias=True):
    h, i = hidden_dim, intermediate_dim
    return 2 * (2 * h * i + 2 * i * h) + (i + h) * bias + 2 * i


def glu_backward_flops(hidden_dim, intermediate_dim, bias=True):
    h, i = hidden_dim, intermediate_dim
    return 2 * (2 * h * i * 2 + 2 * i * h) + (2 * i + h) * bias + 2 * i + 2 * i


def glu_intermediate_dim(hidden_dim, expansion=4, multiple_of=1, bias=True):
    budget = mlp_param_count(hidden_dim, int(expansion * hidden_dim), bias)
    low, high = 0, 1  # in units of multiple_of: low is too narrow (or zero), high is wide enough
    while glu_param_count(hidden_dim, high * multiple_of, bias) < budget:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        if glu_param_count(hidden_dim, middle * multiple_of, bias) >= budget:
            high = middle
        else:
            low = middle
    return high * multiple_of
