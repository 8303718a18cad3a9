"""Wrong: dropout is applied to the input x on the way in instead of to the block's output."""

from torch import nn

EXPECT_FAILURES = {
    "test_dropout_share_of_zeros[MLP]": "applied earlier in the block (to x",
    "test_dropout_share_of_zeros[GLU]": "it belongs after Wo",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        x = self.drop(x)
        return self.Wo(self.act(self.Wi(x)))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        x = self.drop(x)
        return self.Wo(self.act(self.Wg(x)) * self.Wv(x))
