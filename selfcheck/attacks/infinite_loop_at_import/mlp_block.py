"""Attack: never finish importing. It hangs asleep: the budget charges a child's wall clock or its CPU,
whichever is more, so a busy hang costs the grade the same; a busy hang's CPU is what cpu_hog and
hang_in_mlp_forward try, and this one would only take a core from the self-checks beside it for its budgets."""

import time

from torch import nn

while True:
    time.sleep(1)


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
