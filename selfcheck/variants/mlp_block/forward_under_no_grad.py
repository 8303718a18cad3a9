"""Wrong: forward runs under @torch.no_grad() (copied from inference code), so nothing can train."""

import torch
from torch import nn

EXPECT_FAILURES = {
    "test_gradients[MLP]": "torch.no_grad()",
    "test_gradients[GLU]": "no gradient reached the input x",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    @torch.no_grad()
    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wi(x))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    @torch.no_grad()
    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))
