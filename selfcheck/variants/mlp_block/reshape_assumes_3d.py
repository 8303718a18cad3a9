"""Wrong: forward unpacks `b, s, h = x.shape`, so only (batch, seq, hidden) inputs work."""

from torch import nn

EXPECT_FAILURES = {
    "test_output_shape[2d-MLP]": "don't unpack x.shape into a fixed count",
    "test_output_shape[4d-GLU]": "any number of leading dimensions",
    "test_parity_with_reference[default-MLP]": "leading dimensions",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        b, s, h = x.shape
        y = self.Wo(self.act(self.Wi(x.reshape(b * s, h))))
        return self.drop(y).reshape(b, s, h)


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        b, s, h = x.shape
        flat = x.reshape(b * s, h)
        y = self.Wo(self.act(self.Wg(flat)) * self.Wv(flat))
        return self.drop(y).reshape(b, s, h)
