"""Wrong: GLU fuses Wg and Wv into one nn.Linear(hidden, 2*intermediate), so Wv/Wg keys are missing."""

from torch import nn

EXPECT_FAILURES = {
    "test_layer_names[GLU]": "fuses the gate and value projections",
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
        self.Wgv = nn.Linear(hidden_dim, 2 * intermediate_dim)  # one matmul for both paths
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        gate, value = self.Wgv(x).chunk(2, dim=-1)
        return self.drop(self.Wo(self.act(gate) * value))
