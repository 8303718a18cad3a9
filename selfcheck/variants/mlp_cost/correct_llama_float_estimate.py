"""Correct: the width starts from LLaMA's float estimate, 2/3 * expansion * hidden_dim, and is nudged."""

EXPECT_FAILURES = {}


def mlp_param_count(hidden_dim, intermediate_dim, bias=True):
    weights = hidden_dim * intermediate_dim + intermediate_dim * hidden_dim
    return weights + (intermediate_dim + hidden_dim if bias else 0)


def glu_param_count(hidden_dim, intermediate_dim, bias=True):
    weights = 3 * intermediate_dim * hidden_dim
    return weights + (intermediate_dim * 2 + hidden_dim if bias else 0)


def _elementwise(intermediate_dim, hidden_dim, bias, gated, per_number):
    biases = ((2 if gated else 1) * intermediate_dim + hidden_dim) if bias else 0
    return biases + per_number * intermediate_dim * (2 if gated else 1)


def mlp_forward_flops(hidden_dim, intermediate_dim, bias=True):
    return 2 * (mlp_param_count(hidden_dim, intermediate_dim, False)) + _elementwise(intermediate_dim, hidden_dim, bias, False, 1)


def glu_forward_flops(hidden_dim, intermediate_dim, bias=True):
    return 2 * (glu_param_count(hidden_dim, intermediate_dim, False)) + _elementwise(intermediate_dim, hidden_dim, bias, True, 1)


def mlp_backward_flops(hidden_dim, intermediate_dim, bias=True):
    return 4 * (mlp_param_count(hidden_dim, intermediate_dim, False)) + _elementwise(intermediate_dim, hidden_dim, bias, False, 2)


def glu_backward_flops(hidden_dim, intermediate_dim, bias=True):
    return 4 * (glu_param_count(hidden_dim, intermediate_dim, False)) + _elementwise(intermediate_dim, hidden_dim, bias, True, 2)


def glu_intermediate_dim(hidden_dim, expansion=4, multiple_of=1, bias=True):
    budget = mlp_param_count(hidden_dim, int(expansion * hidden_dim), bias)
    width = max(1, int(2 * expansion * hidden_dim / 3))
    while glu_param_count(hidden_dim, width, bias) < budget:
        width += 1
    while width > 1 and glu_param_count(hidden_dim, width - 1, bias) >= budget:
        width -= 1
    return -(-width // multiple_of) * multiple_of
