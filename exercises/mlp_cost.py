"""Exercise: what the MLP and GLU blocks of ``exercises/mlp_block.py`` cost.

Fill in the seven numbered TODOs, then run ``pytest tests/test_cost.py`` (or ``-m cost``). Each test
names the TODO it checks. Every function returns an ``int`` and works for any positive
``hidden_dim`` and ``intermediate_dim``; ``bias`` says whether the linear layers have biases (the
blocks of the exercise do; LLaMA-style blocks do not).

The tests check your counts against the real blocks: parameters against ``sum(p.numel() ...)`` of
``MLP`` and ``GLU``, matrix-product FLOPs against ``torch.utils.flop_counter.FlopCounterMode`` run
on them. That counter sees only matrix products, so the other operations are counted by the rules
below, which the tests use too.

Counting rules, per token (one position's vector of hidden_dim numbers):

* a matrix product with an ``nn.Linear(n_in, n_out)`` weight: ``2 * n_in * n_out`` FLOPs (a multiply
  and an add for each weight);
* adding a bias: 1 FLOP per output number;
* the activation: 1 FLOP per number it is applied to, whichever activation it is (a convention: a
  GELU takes more arithmetic than a ReLU, but either way it grows with intermediate_dim, not with
  hidden_dim * intermediate_dim, so it hardly matters next to the products);
* the gate product ``act(Wg(x)) * Wv(x)`` in GLU: 1 FLOP per number;
* dropout: not counted.

The backward pass computes the gradient of the input x (it flows on to the layers below) and of
every parameter:

* a matrix product ``x @ W.T`` sends back two products of the same size, ``grad_out @ W`` for x and
  ``grad_out.T @ x`` for W: twice its forward FLOPs;
* a bias: 1 FLOP per output number (its gradient is grad_out summed over the tokens);
* the activation: 2 FLOPs per number (its derivative, times the incoming gradient);
* the gate product: 2 FLOPs per number (the gradient to the gate is grad times value, to the value
  grad times gate).
"""

from __future__ import annotations


def mlp_param_count(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Parameters of MLP(hidden_dim, intermediate_dim): Wi (hidden -> intermediate), Wo (back)."""
    # TODO 1: one weight matrix per layer, plus (when bias is True) one bias per layer, as long as
    # that layer's output.
    raise NotImplementedError("mlp_param_count: TODO 1 in exercises/mlp_cost.py")


def glu_param_count(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Parameters of GLU(hidden_dim, intermediate_dim): Wg and Wv (hidden -> intermediate), Wo (back)."""
    # TODO 2: as TODO 1, for the three layers of GLU.
    raise NotImplementedError("glu_param_count: TODO 2 in exercises/mlp_cost.py")


def mlp_forward_flops(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Forward FLOPs of MLP for one token, by the counting rules of this file's docstring."""
    # TODO 3: the two matrix products, the bias adds (when bias is True) and the activation.
    raise NotImplementedError("mlp_forward_flops: TODO 3 in exercises/mlp_cost.py")


def glu_forward_flops(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Forward FLOPs of GLU for one token, by the counting rules of this file's docstring."""
    # TODO 4: three matrix products, the bias adds, the activation (on the gate only) and the gate
    # product.
    raise NotImplementedError("glu_forward_flops: TODO 4 in exercises/mlp_cost.py")


def mlp_backward_flops(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Backward FLOPs of MLP for one token: the gradients of x and of every parameter."""
    # TODO 5: by the backward rules of this file's docstring.
    raise NotImplementedError("mlp_backward_flops: TODO 5 in exercises/mlp_cost.py")


def glu_backward_flops(hidden_dim: int, intermediate_dim: int, bias: bool = True) -> int:
    """Backward FLOPs of GLU for one token: the gradients of x and of every parameter."""
    # TODO 6: by the backward rules of this file's docstring.
    raise NotImplementedError("glu_backward_flops: TODO 6 in exercises/mlp_cost.py")


def glu_intermediate_dim(hidden_dim: int, expansion: float = 4, multiple_of: int = 1, bias: bool = True) -> int:
    """The intermediate_dim that gives a GLU the parameter budget of an MLP.

    The MLP has intermediate_dim = expansion * hidden_dim (a whole number). Return the smallest
    multiple of ``multiple_of`` at which GLU(hidden_dim, intermediate_dim) has at least as many
    parameters as that MLP (both with or both without biases). Without biases this is LLaMA's
    sizing: about 2/3 of the MLP's width, 8/3 * hidden_dim for expansion 4, rounded *up*, so the GLU
    never ends up smaller than the MLP it replaces (LLaMA-7B: hidden_dim 4096, multiple_of 256).
    """
    # TODO 7: solve glu_param_count(hidden_dim, i, bias) >= mlp_param_count(...) for i, then round
    # up to a multiple of multiple_of. Integer arithmetic (or fractions.Fraction) avoids surprises.
    raise NotImplementedError("glu_intermediate_dim: TODO 7 in exercises/mlp_cost.py")
