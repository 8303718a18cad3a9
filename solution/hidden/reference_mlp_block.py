# BEGIN docstring
# stub: """Exercise: the transformer MLP block, plain (MLP) and gated (GLU).
# stub:
# stub: Fill in the four numbered TODOs, then run ``pytest tests/test_mlp.py`` (one task: ``-m mlp`` or
# stub: ``-m glu``). Each test names the TODO it checks.
# stub:
# stub: Shapes: ``x`` is ``(..., hidden_dim)`` with any number of leading dimensions. Every linear layer is
# stub: an ``nn.Linear`` *with* a bias; the layer names below are part of the interface (checkpoints and the
# stub: tests look them up by name).
# stub:
# stub: ``activation_fn`` is a zero-argument callable that returns a module: ``nn.GELU`` (the default),
# stub: ``nn.ReLU``, ``nn.SiLU``, or ``functools.partial(nn.GELU, approximate="tanh")``. Call it once in
# stub: ``__init__`` to get the activation module.
# stub: """
"""Reference MLP and GLU blocks: the instructor's answer that the graded tests compare against.

Same interface as ``exercises/mlp_block.py``. Students: try the exercise before reading this. The
stub ``exercises/mlp_block.py`` is made from this file (``python -m instructor --stubs``): the
regions between ``# BEGIN`` and ``# END`` are what differs, their ``# stub:`` lines the stub's.
"""
# END docstring

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

ActivationFactory = Callable[[], nn.Module]
# BEGIN reference only


def _check_arguments(
    hidden_dim: int, intermediate_dim: int, activation_fn: ActivationFactory, dropout: float
) -> None:
    # bool is an int subclass; True as a width is always a mistake.
    for name, value in (("hidden_dim", hidden_dim), ("intermediate_dim", intermediate_dim)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout < 1.0:
        raise ValueError(f"dropout must be a float in [0, 1), got {dropout!r}")
    if not callable(activation_fn):
        raise ValueError(
            "activation_fn must be a zero-argument callable returning a module "
            f"(e.g. nn.GELU), got {activation_fn!r}"
        )
# END reference only


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
        # BEGIN TODO 1
        # stub: # TODO 1: create self.Wi and self.Wo (nn.Linear, with bias), the activation module
        # stub: # (call activation_fn()), and a dropout module with rate `dropout`.
        # stub: raise NotImplementedError("MLP.__init__: TODO 1 in exercises/mlp_block.py")
        _check_arguments(hidden_dim, intermediate_dim, activation_fn, dropout)
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.act = activation_fn()
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.drop = nn.Dropout(dropout)
        # END TODO 1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # BEGIN TODO 2
        # stub: # TODO 2: return dropout(Wo(act(Wi(x)))). Dropout comes last, after Wo; nn.Dropout
        # stub: # already does nothing in eval mode.
        # stub: raise NotImplementedError("MLP.forward: TODO 2 in exercises/mlp_block.py")
        return self.drop(self.Wo(self.act(self.Wi(x))))
        # END TODO 2


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
        # BEGIN TODO 3
        # stub: # TODO 3: create self.Wv, self.Wg and self.Wo (nn.Linear, with bias), the activation
        # stub: # module and a dropout module.
        # stub: raise NotImplementedError("GLU.__init__: TODO 3 in exercises/mlp_block.py")
        _check_arguments(hidden_dim, intermediate_dim, activation_fn, dropout)
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.act = activation_fn()
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.drop = nn.Dropout(dropout)
        # END TODO 3

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # BEGIN TODO 4
        # stub: # TODO 4: return dropout(Wo(act(Wg(x)) * Wv(x))).
        # stub: raise NotImplementedError("GLU.forward: TODO 4 in exercises/mlp_block.py")
        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))
        # END TODO 4
