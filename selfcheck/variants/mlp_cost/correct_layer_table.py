"""Correct: each block is a table of its layers and its elementwise steps; every count sums the table."""

import math

EXPECT_FAILURES = {}

# (n_in, n_out) of each linear layer, as (hidden, intermediate) factors: "h" or "i"
LAYERS = {"mlp": [("h", "i"), ("i", "h")], "glu": [("h", "i"), ("h", "i"), ("i", "h")]}
# elementwise steps on the intermediate vector, each with its forward and backward FLOPs per number
STEPS = {"mlp": [(1, 2)], "glu": [(1, 2), (1, 2)]}  # activation; activation and gate product


def _sizes(block, hidden_dim, intermediate_dim):
    size = {"h": hidden_dim, "i": intermediate_dim}
    return [(size[a], size[b]) for a, b in LAYERS[block]]


def _params(block, hidden_dim, intermediate_dim, bias):
    return sum(n_in * n_out + (n_out if bias else 0) for n_in, n_out in _sizes(block, hidden_dim, intermediate_dim))


def _flops(block, hidden_dim, intermediate_dim, bias, backward):
    total = 0
    for n_in, n_out in _sizes(block, hidden_dim, intermediate_dim):
        total += (4 if backward else 2) * n_in * n_out + (n_out if bias else 0)
    return total + sum(fwd_bwd[backward] * intermediate_dim for fwd_bwd in STEPS[block])


def mlp_param_count(hidden_dim, intermediate_dim, bias=True):
    return _params("mlp", hidden_dim, intermediate_dim, bias)


def glu_param_count(hidden_dim, intermediate_dim, bias=True):
    return _params("glu", hidden_dim, intermediate_dim, bias)


def mlp_forward_flops(hidden_dim, intermediate_dim, bias=True):
    return _flops("mlp", hidden_dim, intermediate_dim, bias, backward=False)


def glu_forward_flops(hidden_dim, intermediate_dim, bias=True):
    return _flops("glu", hidden_dim, intermediate_dim, bias, backward=False)


def mlp_backward_flops(hidden_dim, intermediate_dim, bias=True):
    return _flops("mlp", hidden_dim, intermediate_dim, bias, backward=True)


def glu_backward_flops(hidden_dim, intermediate_dim, bias=True):
    return _flops("glu", hidden_dim, intermediate_dim, bias, backward=True)


def glu_intermediate_dim(hidden_dim, expansion=4, multiple_of=1, bias=True):
    budget = mlp_param_count(hidden_dim, round(expansion * hidden_dim), bias)
    # glu_param_count(h, i) = fixed + slope * i; the smallest i with that >= budget, by integer ceiling
    fixed = glu_param_count(hidden_dim, 1, bias) - (slope := glu_param_count(hidden_dim, 2, bias)
                                                     - glu_param_count(hidden_dim, 1, bias))
    smallest = -(-(budget - fixed) // slope)
    return math.ceil(smallest / multiple_of) * multiple_of
