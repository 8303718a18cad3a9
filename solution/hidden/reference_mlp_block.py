"""Reference MLP and GLU blocks: the instructor's answer that the graded tests compare against.

Same interface as ``exercises/mlp_block.py``. Students: try the exercise before reading this.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn

ActivationFactory = Callable[[], nn.Module]


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


class MLP(nn.Module):
    """y = dropout(Wo(act(Wi(x)))), position-wise over the last dimension."""

    def __init__(
        self,
        hidden_dim: int,
        intermediate_dim: int,
        activation_fn: ActivationFactory = nn.GELU,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        _check_arguments(hidden_dim, intermediate_dim, activation_fn, dropout)
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.act = activation_fn()
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(self.Wo(self.act(self.Wi(x))))


class GLU(nn.Module):
    """y = dropout(Wo(act(Wg(x)) * Wv(x))): the activation gates, the value path stays linear."""

    def __init__(
        self,
        hidden_dim: int,
        intermediate_dim: int,
        activation_fn: ActivationFactory = nn.GELU,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        _check_arguments(hidden_dim, intermediate_dim, activation_fn, dropout)
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.act = activation_fn()
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))
