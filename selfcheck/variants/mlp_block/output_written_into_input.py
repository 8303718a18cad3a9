"""Wrong: forward writes its result into the input's storage with x.copy_(...) to save memory."""

from torch import nn

EXPECT_FAILURES = {
    "test_input_unmodified[MLP]": "changed its input x in place",
    "test_input_unmodified[GLU]": "x.copy_(...)",
    "test_gradients[MLP]": "compute new tensors instead",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return x.copy_(self.drop(self.Wo(self.act(self.Wi(x)))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return x.copy_(self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x))))
