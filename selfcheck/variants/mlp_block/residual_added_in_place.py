"""Wrong: the block adds the residual in place with x += ..., changing the caller's tensor."""

from torch import nn

EXPECT_FAILURES = {
    "test_input_unmodified[MLP]": "Avoid x += ...",
    "test_parity_with_reference[relu-GLU]": "the residual connection belongs outside the block",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        x += self.drop(self.Wo(self.act(self.Wi(x))))
        return x


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        x += self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))
        return x
