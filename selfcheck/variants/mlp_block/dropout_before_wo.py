"""Wrong: dropout is applied to the hidden activations, before Wo, instead of to the output."""

from torch import nn

EXPECT_FAILURES = {
    "test_dropout_share_of_zeros[MLP]": "it belongs after Wo, on the block's output",
    "test_dropout_share_of_zeros[GLU]": "before Wo",
    "test_dropout_kept_outputs_scaled[MLP]": "dropped no outputs",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.Wo(self.drop(self.act(self.Wi(x))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.Wo(self.drop(self.act(self.Wg(x)) * self.Wv(x)))
