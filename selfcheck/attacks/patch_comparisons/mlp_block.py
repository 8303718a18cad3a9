"""Attack: make every comparison say "equal" (torch.allclose, torch.testing, tensor equality)."""

import torch
import torch.testing
from torch import nn

torch.allclose = lambda *args, **kwargs: True
torch.equal = lambda *args, **kwargs: True
torch.isclose = lambda a, b, *args, **kwargs: torch.ones_like(a, dtype=torch.bool)
torch.testing.assert_close = lambda *args, **kwargs: None
torch.Tensor.__eq__ = lambda self, other: torch.ones_like(self, dtype=torch.bool)
torch.Tensor.__ne__ = lambda self, other: torch.zeros_like(self, dtype=torch.bool)


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        raise NotImplementedError("MLP.__init__: TODO 1")

    def forward(self, x):
        raise NotImplementedError("MLP.forward: TODO 2")


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        raise NotImplementedError("GLU.__init__: TODO 3")

    def forward(self, x):
        raise NotImplementedError("GLU.forward: TODO 4")
