"""Wrong: the linear layers are built with bias=False (as in LLaMA), but the blocks need biases."""

from torch import nn

EXPECT_FAILURES = {
    "test_layer_names[MLP]": "the linear layers need biases",
    "test_layer_names[GLU]": "bias=True",
    "test_parameter_count[MLP]": "plus a bias each",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim, bias=False)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim, bias=False)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wi(x))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim, bias=False)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim, bias=False)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim, bias=False)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))
