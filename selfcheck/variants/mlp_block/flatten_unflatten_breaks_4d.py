"""Wrong: flattens to 2-D, then reshapes back to (x.size(0), -1, hidden), which is wrong unless x is 3-D."""

from torch import nn

EXPECT_FAILURES = {
    "test_output_shape[4d-MLP]": "reshape back to x.shape",
    "test_output_shape[2d-GLU]": "any number of leading dimensions must pass through",
    "test_parity_with_reference[default-GLU]": "reshape back to x.shape",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        flat = x.reshape(-1, self.hidden_dim)
        y = self.drop(self.Wo(self.act(self.Wi(flat))))
        return y.reshape(x.size(0), -1, self.hidden_dim)


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        flat = x.reshape(-1, self.hidden_dim)
        y = self.drop(self.Wo(self.act(self.Wg(flat)) * self.Wv(flat)))
        return y.reshape(x.size(0), -1, self.hidden_dim)
