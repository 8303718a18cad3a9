"""Wrong: both blocks build nn.GELU() and ignore the activation_fn they were given."""

from torch import nn

EXPECT_FAILURES = {
    "test_parity_with_reference[relu-MLP]": "uses exact GELU although activation_fn=relu was passed",
    "test_parity_with_reference[silu-GLU]": "build the activation by calling activation_fn()",
    "test_parity_with_reference[gelu_tanh_partial-MLP]": "don't hard-code one",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = nn.GELU()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wi(x))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = nn.GELU()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))
