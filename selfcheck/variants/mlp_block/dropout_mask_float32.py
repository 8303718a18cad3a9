"""Wrong: a hand-written dropout mask made with .float() turns bfloat16 outputs into float32 in training."""

import torch
from torch import nn

EXPECT_FAILURES = {
    "test_dtype_kept[bfloat16-MLP]": "training mode with dropout=0.3 turned torch.bfloat16 input into torch.float32",
    "test_dtype_kept[bfloat16-GLU]": "make the dropout mask in the output's dtype",
}


def drop(y, p, training):
    if not training or p == 0:
        return y
    keep = (torch.rand(y.shape, device=y.device) >= p).float()
    return y * keep / (1 - p)


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
