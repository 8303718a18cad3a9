"""Wrong: GLU applies the activation to both the gate and the value path."""

from torch import nn

EXPECT_FAILURES = {
    "test_parity_with_reference[default-GLU]": "the activation is on both paths",
    "test_parity_with_reference[silu-GLU]": "only the gate Wg gets it",
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
        gate = self.act(self.Wg(x))
        value = self.act(self.Wv(x))  # the value path should stay linear
        return self.drop(self.Wo(gate * value))
