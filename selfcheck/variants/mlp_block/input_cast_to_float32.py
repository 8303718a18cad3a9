"""Wrong: forward casts the input with x.float(), which breaks every block that is not float32."""

from torch import nn

EXPECT_FAILURES = {
    "test_dtype_kept[float64-MLP]": "don't cast x or intermediate tensors with .float()",
    "test_dtype_kept[bfloat16-GLU]": "forward mixes dtypes",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        x = x.float()
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
        x = x.float()
        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))
