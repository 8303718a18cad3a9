"""Wrong: nn.Linear(out, in) argument order, as if it took the weight's (out, in) shape."""

from torch import nn

EXPECT_FAILURES = {
    "test_parameter_shapes[MLP]": "the two sizes are swapped",
    "test_parameter_shapes[GLU]": "nn.Linear(hidden_dim, intermediate_dim)",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(intermediate_dim, hidden_dim)
        self.Wo = nn.Linear(hidden_dim, intermediate_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wi(x))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(intermediate_dim, hidden_dim)
        self.Wg = nn.Linear(intermediate_dim, hidden_dim)
        self.Wo = nn.Linear(hidden_dim, intermediate_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))
