# BEGIN docstring
# stub: """Exercise: what the MLP and GLU blocks of ``exercises/mlp_block.py`` cost.
# stub:
# stub: Fill in the seven numbered TODOs, then run ``pytest tests/test_cost.py`` (or ``-m cost``). Each test
# stub: names the TODO it checks. Every function returns an ``int`` and works for any positive
# stub: ``hidden_dim`` and ``intermediate_dim``; ``bias`` says whether the linear layers have biases (the
# stub: blocks of the exercise do; LLaMA-style blocks do not).
# stub:
# stub: The tests check your counts against the real blocks: parameters against ``sum(p.numel() ...)`` of
# stub: ``MLP`` and ``GLU``, matrix-product FLOPs against ``torch.utils.flop_counter.FlopCounterMode`` run
# stub: on them. That counter sees only matrix products, so the other operations are counted by the rules
# stub: below, which the tests use too.
# stub:
# stub: Counting rules, per token (one position's vector of hidden_dim numbers):
# stub:
# stub: * a matrix product with an ``nn.Linear(n_in, n_out)`` weight: ``2 * n_in * n_out`` FLOPs (a multiply
# stub:   and an add for each weight);
# stub: * adding a bias: 1 FLOP per output number;
# stub: * the activation: 1 FLOP per number it is applied to, whichever activation it is (a convention: a
# stub:   GELU takes more arithmetic than a ReLU, but either way it grows with intermediate_dim, not with
# stub:   hidden_dim * intermediate_dim, so it hardly matters next to the products);
# stub: * the gate product ``act(Wg(x)) * Wv(x)`` in GLU: 1 FLOP per number;
# stub: * dropout: not counted.
# stub:
# stub: The backward pass computes the gradient of the input x (it flows on to the layers below) and of
# stub: every parameter:
# stub:
# stub: * a matrix product ``x @ W.T`` sends back two products of the same size, ``grad_out @ W`` for x and
# stub:   ``grad_out.T @ x`` for W: twice its forward FLOPs;
# stub: * a bias: 1 FLOP per output number (its gradient is grad_out summed over the tokens);
# stub: * the activation: 2 FLOPs per number (its derivative, times the incoming gradient);
# stub: * the gate product: 2 FLOPs per number (the gradient to the gate is grad times value, to the value
# stub:   grad times gate).
# stub: """
"""Reference answers to the cost exercise: what an MLP or GLU block holds and computes, per token.

Same interface and counting rules as ``exercises/mlp_cost.py``. Students: try the exercise before
reading this. The stub ``exercises/mlp_cost.py`` is made from this file (``python -m instructor
--stubs``): the regions between ``# BEGIN`` and ``# END`` are what differs, their ``# stub:`` lines
the stub's.
"""
# END docstring

from __future__ import annotations
# BEGIN reference only

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
# END reference only


def mlp_param_count(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Parameters of MLP(hidden_dim, intermediate_dim): Wi (hidden -> intermediate), Wo (back)."""
    # BEGIN TODO 1
    # stub: # TODO 1: one weight matrix per layer, plus (when bias is True) one bias per layer, as long as
    # stub: # that layer's output.
    # stub: raise NotImplementedError("mlp_param_count: TODO 1 in exercises/mlp_cost.py")
    _check_dims(hidden_dim=hidden_dim, intermediate_dim=intermediate_dim)
    _check_bias(bias)
    mlp_weights = 2 * hidden_dim * intermediate_dim
    mlp_biases = intermediate_dim + hidden_dim  # Wi's, then Wo's
    return mlp_weights + (mlp_biases if bias else 0)
    # END TODO 1


def glu_param_count(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Parameters of GLU(hidden_dim, intermediate_dim): Wg and Wv (hidden -> intermediate), Wo (back)."""
    # BEGIN TODO 2
    # stub: # TODO 2: as TODO 1, for the three layers of GLU.
    # stub: raise NotImplementedError("glu_param_count: TODO 2 in exercises/mlp_cost.py")
    _check_dims(hidden_dim=hidden_dim, intermediate_dim=intermediate_dim)
    _check_bias(bias)
    glu_weights = 3 * hidden_dim * intermediate_dim
    glu_biases = 2 * intermediate_dim + hidden_dim  # Wg's and Wv's, then Wo's
    return glu_weights + (glu_biases if bias else 0)
    # END TODO 2


def mlp_forward_flops(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Forward FLOPs of MLP for one token, by the counting rules of this file's docstring."""
    # BEGIN TODO 3
    # stub: # TODO 3: the two matrix products, the bias adds (when bias is True) and the activation.
    # stub: raise NotImplementedError("mlp_forward_flops: TODO 3 in exercises/mlp_cost.py")
    _check_dims(hidden_dim=hidden_dim, intermediate_dim=intermediate_dim)
    _check_bias(bias)
    matmuls = 2 * (2 * hidden_dim * intermediate_dim)  # Wi and Wo, 2 FLOPs per weight
    bias_adds = intermediate_dim + hidden_dim if bias else 0
    activation = intermediate_dim
    return matmuls + bias_adds + activation
    # END TODO 3


def glu_forward_flops(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Forward FLOPs of GLU for one token, by the counting rules of this file's docstring."""
    # BEGIN TODO 4
    # stub: # TODO 4: three matrix products, the bias adds, the activation (on the gate only) and the gate
    # stub: # product.
    # stub: raise NotImplementedError("glu_forward_flops: TODO 4 in exercises/mlp_cost.py")
    _check_dims(hidden_dim=hidden_dim, intermediate_dim=intermediate_dim)
    _check_bias(bias)
    matmuls = 3 * (2 * hidden_dim * intermediate_dim)  # Wg, Wv and Wo, 2 FLOPs per weight
    bias_adds = 2 * intermediate_dim + hidden_dim if bias else 0
    activation = intermediate_dim  # on the gate only
    gate_product = intermediate_dim  # act(Wg x) * Wv x
    return matmuls + bias_adds + activation + gate_product
    # END TODO 4


def mlp_backward_flops(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Backward FLOPs of MLP for one token: the gradients of x and of every parameter."""
    # BEGIN TODO 5
    # stub: # TODO 5: by the backward rules of this file's docstring.
    # stub: raise NotImplementedError("mlp_backward_flops: TODO 5 in exercises/mlp_cost.py")
    _check_dims(hidden_dim=hidden_dim, intermediate_dim=intermediate_dim)
    _check_bias(bias)
    # Each product x @ W.T sends back two of its size: grad_out @ W (for x), grad_out.T @ x (for W).
    matmuls = 2 * 2 * (2 * hidden_dim * intermediate_dim)
    bias_grads = intermediate_dim + hidden_dim if bias else 0  # sum grad_out over the tokens
    activation = 2 * intermediate_dim  # act'(z), times the incoming gradient
    return matmuls + bias_grads + activation
    # END TODO 5


def glu_backward_flops(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Backward FLOPs of GLU for one token: the gradients of x and of every parameter."""
    # BEGIN TODO 6
    # stub: # TODO 6: by the backward rules of this file's docstring.
    # stub: raise NotImplementedError("glu_backward_flops: TODO 6 in exercises/mlp_cost.py")
    _check_dims(hidden_dim=hidden_dim, intermediate_dim=intermediate_dim)
    _check_bias(bias)
    matmuls = 2 * 3 * (2 * hidden_dim * intermediate_dim)
    bias_grads = 2 * intermediate_dim + hidden_dim if bias else 0
    activation = 2 * intermediate_dim
    gate_product = 2 * intermediate_dim  # grad to the gate (times value) and to the value (times gate)
    return matmuls + bias_grads + activation + gate_product
    # END TODO 6


def glu_intermediate_dim(hidden_dim: int, expansion: float = 4, multiple_of: int = 1, bias: bool = True) -> int:
    """The intermediate_dim that gives a GLU the parameter budget of an MLP.

    The MLP has intermediate_dim = expansion * hidden_dim (a whole number). Return the smallest
    multiple of ``multiple_of`` at which GLU(hidden_dim, intermediate_dim) has at least as many
    parameters as that MLP (both with or both without biases). Without biases this is LLaMA's
    sizing: about 2/3 of the MLP's width, 8/3 * hidden_dim for expansion 4, rounded *up*, so the GLU
    never ends up smaller than the MLP it replaces (LLaMA-7B: hidden_dim 4096, multiple_of 256).
    """
    # BEGIN TODO 7
    # stub: # TODO 7: solve glu_param_count(hidden_dim, i, bias) >= mlp_param_count(...) for i, then round
    # stub: # up to a multiple of multiple_of. Integer arithmetic (or fractions.Fraction) avoids surprises.
    # stub: raise NotImplementedError("glu_intermediate_dim: TODO 7 in exercises/mlp_cost.py")
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
    # END TODO 7
