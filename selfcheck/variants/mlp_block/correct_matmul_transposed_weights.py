"""Correct: forward spells each layer out as x @ W.T + b (MLP) and as an einsum (GLU)."""

import torch
from torch import nn

EXPECT_FAILURES = {}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        h = self.act(x @ self.Wi.weight.T + self.Wi.bias)
        return self.drop(h @ self.Wo.weight.T + self.Wo.bias)


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        # weights are stored (out, in), so contract x's last axis with the weight's second axis
        gate = self.act(torch.einsum("...h,ih->...i", x, self.Wg.weight) + self.Wg.bias)
        value = torch.einsum("...h,ih->...i", x, self.Wv.weight) + self.Wv.bias
        y = torch.einsum("...i,hi->...h", gate * value, self.Wo.weight) + self.Wo.bias
        return self.drop(y)
