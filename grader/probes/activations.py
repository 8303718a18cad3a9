"""The activations the suites and notebooks ask for by name: the one table of them.

Activations travel between processes by name (``"gelu"``, ``"relu2"``); ``None`` means "omit the
argument", so the default of the code under test is what runs.
"""

from __future__ import annotations

import functools
from typing import Callable

import torch
from torch import nn


class SquaredReLU(nn.Module):
    """relu(x) ** 2 (Primer, So et al. 2021); used by the notebook and available to the tests."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) ** 2


ACTIVATIONS: dict[str, Callable[[], nn.Module]] = {
    "gelu": nn.GELU,
    "gelu_tanh": functools.partial(nn.GELU, approximate="tanh"),
    "relu": nn.ReLU,
    "silu": nn.SiLU,
    "relu2": SquaredReLU,
    "sigmoid": nn.Sigmoid,
}
