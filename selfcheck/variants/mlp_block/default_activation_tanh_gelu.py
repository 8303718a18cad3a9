"""Wrong: the default activation is the tanh approximation of GELU (GPT-2's) instead of exact GELU."""

import functools

from torch import nn

EXPECT_FAILURES = {
    "test_parity_with_reference[default-MLP]": "uses tanh-approximate GELU",
    "test_parity_with_reference[default-GLU]": "exact, not approximate='tanh'",
}

GELUTanh = functools.partial(nn.GELU, approximate="tanh")


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=GELUTanh, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wi(x))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=GELUTanh, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))
