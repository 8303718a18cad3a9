"""Wrong: the block adds the residual itself and returns x + dropout(Wo(...))."""

from torch import nn

EXPECT_FAILURES = {
    "test_parity_with_reference[default-MLP]": "the residual connection belongs outside the block",
    "test_dropout_share_of_zeros[GLU]": "the block adds its input x",
    "test_dropout_off_in_eval_mode[MLP]": "residual connection belongs outside the block",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return x + self.drop(self.Wo(self.act(self.Wi(x))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return x + self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))
