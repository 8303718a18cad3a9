"""Exercise: the transformer MLP block, plain (MLP) and gated (GLU).

Fill in the four numbered TODOs, then run ``pytest tests/test_mlp.py`` (one task: ``-m mlp`` or
``-m glu``). Each test names the TODO it checks.

Shapes: ``x`` is ``(..., hidden_dim)`` with any number of leading dimensions. Every linear layer is
an ``nn.Linear`` *with* a bias; the layer names below are part of the interface (checkpoints and the
tests look them up by name).

``activation_fn`` is a zero-argument callable that returns a module: ``nn.GELU`` (the default),
``nn.ReLU``, ``nn.SiLU``, or ``functools.partial(nn.GELU, approximate="tanh")``. Call it once in
``__init__`` to get the activation module.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

ActivationFactory = Callable[[], nn.Module]


class MLP(nn.Module):
    """The classic feed-forward block.

        h = act(Wi(x))          Wi: hidden_dim -> intermediate_dim
        y = dropout(Wo(h))      Wo: intermediate_dim -> hidden_dim

    Parameters: 2 * hidden_dim * intermediate_dim weights + intermediate_dim + hidden_dim biases.
    """

    def __init__(
        self,
        hidden_dim: int,
        intermediate_dim: int,
        activation_fn: ActivationFactory = nn.GELU,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        # TODO 1: create self.Wi and self.Wo (nn.Linear, with bias), the activation module
        # (call activation_fn()), and a dropout module with rate `dropout`.
        raise NotImplementedError("MLP.__init__: TODO 1 in exercises/mlp_block.py")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # TODO 2: return dropout(Wo(act(Wi(x)))). Dropout comes last, after Wo; nn.Dropout
        # already does nothing in eval mode.
        raise NotImplementedError("MLP.forward: TODO 2 in exercises/mlp_block.py")


class GLU(nn.Module):
    """The gated variant: two parallel projections, one of them gated by the activation.

        gate  = act(Wg(x))      Wg: hidden_dim -> intermediate_dim   (the activation goes here only)
        value = Wv(x)           Wv: hidden_dim -> intermediate_dim   (no activation)
        y = dropout(Wo(gate * value))                Wo: intermediate_dim -> hidden_dim

    Parameters: 3 * hidden_dim * intermediate_dim weights + 2 * intermediate_dim + hidden_dim biases.
    With activation_fn=nn.SiLU this is SwiGLU, the MLP of LLaMA-style models.
    """

    def __init__(
        self,
        hidden_dim: int,
        intermediate_dim: int,
        activation_fn: ActivationFactory = nn.GELU,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        # TODO 3: create self.Wv, self.Wg and self.Wo (nn.Linear, with bias), the activation
        # module and a dropout module.
        raise NotImplementedError("GLU.__init__: TODO 3 in exercises/mlp_block.py")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # TODO 4: return dropout(Wo(act(Wg(x)) * Wv(x))).
        raise NotImplementedError("GLU.forward: TODO 4 in exercises/mlp_block.py")
