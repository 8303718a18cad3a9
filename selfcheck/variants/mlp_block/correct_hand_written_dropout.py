"""Correct: inverted dropout written by hand with a torch.rand_like mask and 1/(1-p) scaling."""

import torch
from torch import nn


EXPECT_FAILURES = {}


def inverted_dropout(y, p, training):
    if not training or p == 0.0:
        return y
    keep = torch.rand_like(y) >= p  # each output survives with probability 1 - p
    return y * keep / (1.0 - p)


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.p = dropout

    def forward(self, x):
        return inverted_dropout(self.Wo(self.act(self.Wi(x))), self.p, self.training)


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.p = dropout

    def forward(self, x):
        y = self.Wo(self.act(self.Wg(x)) * self.Wv(x))
        if self.training and self.p > 0:
            # a Bernoulli mask this time, to show the other common spelling
            y = y * torch.bernoulli(torch.full_like(y, 1.0 - self.p)) / (1.0 - self.p)
        return y
