"""Wrong: .detach() on the hidden activations (MLP) and on the gate (GLU) cuts the gradient to Wi/Wg."""

from torch import nn

EXPECT_FAILURES = {
    "test_gradients[MLP]": "no gradient reached the input x",
    "test_gradients[GLU]": "no gradient reached Wg.weight, Wg.bias: something in forward cuts the graph",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        h = self.act(self.Wi(x)).detach()
        return self.drop(self.Wo(h))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        gate = self.act(self.Wg(x)).detach()
        return self.drop(self.Wo(gate * self.Wv(x)))
