"""Wrong: GLU gates with a hard-coded sigmoid (the 2016 GLU paper) instead of activation_fn()."""

import torch
from torch import nn

EXPECT_FAILURES = {
    "test_parity_with_reference[default-GLU]": "the gate uses sigmoid",
    "test_parity_with_reference[silu-GLU]": "use the module that activation_fn() returns",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

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

    def forward(self, x):
        return self.drop(self.Wo(torch.sigmoid(self.Wg(x)) * self.Wv(x)))
