"""Reference answers to the cost exercise: what an MLP or GLU block holds and computes, per token.

Same interface and counting rules as ``exercises/mlp_cost.py``. Students: try the exercise before
reading this.
"""

from __future__ import annotations

import math
from fractions import Fraction


def _check_dims(**dims: int) -> None:
    # bool is an int subclass; True as a width is always a mistake.
    for name, value in dims.items():
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{name} must be a positive int, got {value!r}")


def _check_bias(bias: bool) -> None:
    if not isinstance(bias, bool):
        raise ValueError(f"bias must be True or False, got {bias!r}")


# ------------------------------------------------------------------------------------ parameters

def mlp_param_count(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Parameters of MLP: Wi (hidden -> intermediate) and Wo (intermediate -> hidden)."""
    _check_dims(hidden_dim=hidden_dim, intermediate_dim=intermediate_dim)
    _check_bias(bias)
    mlp_weights = 2 * hidden_dim * intermediate_dim
    mlp_biases = intermediate_dim + hidden_dim  # Wi's, then Wo's
    return mlp_weights + (mlp_biases if bias else 0)


def glu_param_count(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Parameters of GLU: Wg and Wv (hidden -> intermediate each) and Wo (intermediate -> hidden)."""
    _check_dims(hidden_dim=hidden_dim, intermediate_dim=intermediate_dim)
    _check_bias(bias)
    glu_weights = 3 * hidden_dim * intermediate_dim
    glu_biases = 2 * intermediate_dim + hidden_dim  # Wg's and Wv's, then Wo's
    return glu_weights + (glu_biases if bias else 0)


# ------------------------------------------------------------------------ FLOPs, forward pass

def mlp_forward_flops(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Forward FLOPs of MLP for one token: two matrix products, the biases, the activation."""
    _check_dims(hidden_dim=hidden_dim, intermediate_dim=intermediate_dim)
    _check_bias(bias)
    matmuls = 2 * (2 * hidden_dim * intermediate_dim)  # Wi and Wo, 2 FLOPs per weight
    bias_adds = intermediate_dim + hidden_dim if bias else 0
    activation = intermediate_dim
    return matmuls + bias_adds + activation


def glu_forward_flops(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Forward FLOPs of GLU for one token: three matrix products, the biases, activation, gate product."""
    _check_dims(hidden_dim=hidden_dim, intermediate_dim=intermediate_dim)
    _check_bias(bias)
    matmuls = 3 * (2 * hidden_dim * intermediate_dim)  # Wg, Wv and Wo, 2 FLOPs per weight
    bias_adds = 2 * intermediate_dim + hidden_dim if bias else 0
    activation = intermediate_dim  # on the gate only
    gate_product = intermediate_dim  # act(Wg x) * Wv x
    return matmuls + bias_adds + activation + gate_product


# ----------------------------------------------------------------------- FLOPs, backward pass

def mlp_backward_flops(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Backward FLOPs of MLP for one token: gradients for the input and for every parameter."""
    _check_dims(hidden_dim=hidden_dim, intermediate_dim=intermediate_dim)
    _check_bias(bias)
    # Each product x @ W.T sends back two of its size: grad_out @ W (for x), grad_out.T @ x (for W).
    matmuls = 2 * 2 * (2 * hidden_dim * intermediate_dim)
    bias_grads = intermediate_dim + hidden_dim if bias else 0  # sum grad_out over the tokens
    activation = 2 * intermediate_dim  # act'(z), times the incoming gradient
    return matmuls + bias_grads + activation


def glu_backward_flops(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Backward FLOPs of GLU for one token: gradients for the input and for every parameter."""
    _check_dims(hidden_dim=hidden_dim, intermediate_dim=intermediate_dim)
    _check_bias(bias)
    matmuls = 2 * 3 * (2 * hidden_dim * intermediate_dim)
    bias_grads = 2 * intermediate_dim + hidden_dim if bias else 0
    activation = 2 * intermediate_dim
    gate_product = 2 * intermediate_dim  # grad to the gate (times value) and to the value (times gate)
    return matmuls + bias_grads + activation + gate_product


# ------------------------------------------------------------------------------- matched sizing

def glu_intermediate_dim(hidden_dim: int, expansion: float = 4, multiple_of: int = 1, bias: bool = True) -> int:
    """The smallest multiple of ``multiple_of`` at which a GLU has at least the parameters of an MLP
    whose intermediate_dim is ``expansion * hidden_dim``."""
    _check_dims(hidden_dim=hidden_dim, multiple_of=multiple_of)
    _check_bias(bias)
    if isinstance(expansion, bool) or not isinstance(expansion, (int, float, Fraction)) or not expansion > 0:
        raise ValueError(f"expansion must be a positive number, got {expansion!r}")
    # as written: 4.1 means 41/10, not the binary float nearest to it
    mlp_width = Fraction(str(expansion) if isinstance(expansion, float) else expansion) * hidden_dim
    if mlp_width.denominator != 1:
        raise ValueError(f"expansion * hidden_dim must be a whole number (the MLP's intermediate_dim),"
                         f" got {expansion!r} * {hidden_dim} = {float(mlp_width)}")
    budget = mlp_param_count(hidden_dim, int(mlp_width), bias)
    # glu_param_count is linear in intermediate_dim: fixed + per_unit * intermediate_dim.
    fixed = hidden_dim if bias else 0
    per_unit = 3 * hidden_dim + (2 if bias else 0)
    exact = Fraction(budget - fixed, per_unit)  # the width that matches the budget exactly
    return math.ceil(exact / multiple_of) * multiple_of
