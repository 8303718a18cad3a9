"""Correct: keeps the activation factory and builds a fresh activation module on every forward call."""

from torch import nn

EXPECT_FAILURES = {}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.activation_fn = activation_fn
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        act = self.activation_fn()
        return self.drop(self.Wo(act(self.Wi(x))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.activation_fn = activation_fn
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        gate = self.activation_fn()(self.Wg(x))
        return self.drop(self.Wo(gate * self.Wv(x)))
