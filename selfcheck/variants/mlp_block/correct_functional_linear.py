"""Correct: nn.Linear holds the parameters, forward calls F.linear and F.dropout directly."""

import torch.nn.functional as F
from torch import nn

EXPECT_FAILURES = {}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.p = dropout

    def forward(self, x):
        h = self.act(F.linear(x, self.Wi.weight, self.Wi.bias))
        y = F.linear(h, self.Wo.weight, self.Wo.bias)
        return F.dropout(y, p=self.p, training=self.training)


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.p = dropout

    def forward(self, x):
        gate = self.act(F.linear(x, self.Wg.weight, self.Wg.bias))
        value = F.linear(x, self.Wv.weight, self.Wv.bias)
        y = F.linear(gate * value, self.Wo.weight, self.Wo.bias)
        return F.dropout(y, p=self.p, training=self.training)
