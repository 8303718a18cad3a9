"""Wrong: forward returns out.float(), so float64 and bfloat16 blocks give float32 outputs."""

from torch import nn

EXPECT_FAILURES = {
    "test_dtype_kept[float64-MLP]": "into torch.float32 output",
    "test_dtype_kept[bfloat16-GLU]": "don't cast with .float()",
    "test_parity_with_reference[default-MLP]": "dtype torch.float32, expected torch.float64",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wi(x)))).float()


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x))).float()
