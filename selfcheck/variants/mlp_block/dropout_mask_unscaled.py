"""Wrong: a hand-written dropout mask zeroes outputs but does not scale the kept ones by 1/(1-p)."""

import torch
from torch import nn

EXPECT_FAILURES = {
    "test_dropout_kept_outputs_scaled[MLP]": "scales them by 1/(1-p)",
    "test_dropout_kept_outputs_scaled[GLU]": "kept outputs equal the eval output",
}


def drop(y, p, training):
    if not training or p == 0:
        return y
    keep = (torch.rand_like(y) >= p).to(y.dtype)
    return y * keep


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.p = dropout

    def forward(self, x):
        return drop(self.Wo(self.act(self.Wi(x))), self.p, self.training)


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.p = dropout

    def forward(self, x):
        return drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)), self.p, self.training)
