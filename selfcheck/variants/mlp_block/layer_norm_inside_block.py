"""Wrong: the block normalises its input with its own nn.LayerNorm, which belongs to the transformer layer."""

from torch import nn

EXPECT_FAILURES = {
    "test_layer_names[MLP]": "the extra ones belong outside the block",
    "test_parameter_count[GLU]": "nothing else with parameters",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.norm = nn.LayerNorm(hidden_dim)
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wi(self.norm(x)))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.norm = nn.LayerNorm(hidden_dim)
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        h = self.norm(x)
        return self.drop(self.Wo(self.act(self.Wg(h)) * self.Wv(h)))
