"""Attack: implement nothing, but make the process exit with status 0 whenever it ends."""

import atexit
import os
import sys

from torch import nn

atexit.register(os._exit, 0)
sys.excepthook = lambda *args: os._exit(0)


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
