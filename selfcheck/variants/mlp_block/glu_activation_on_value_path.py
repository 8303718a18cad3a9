"""Wrong: GLU puts the activation on the value path."""

import torch
from torch import nn

EXPECT_FAILURES = {"test_parity_with_reference[default-GLU]": "gate path", "test_parity_with_reference[relu-GLU]": "value path"}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.activation = activation_fn()
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.Wo(self.activation(self.Wi(x))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.activation = activation_fn()
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.Wo(self.activation(self.Wv(x)) * self.Wg(x)))
