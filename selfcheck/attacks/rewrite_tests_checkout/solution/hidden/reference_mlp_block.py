"""Part of an attack: a "reference" that is as empty as the stubs, so the two would agree."""

from torch import nn


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
