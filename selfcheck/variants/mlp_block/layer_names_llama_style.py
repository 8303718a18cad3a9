"""Wrong: layers named fc1/fc2 and w1/w2/w3 (as in other codebases) instead of Wi/Wo and Wv/Wg/Wo."""

from torch import nn

EXPECT_FAILURES = {
    "test_layer_names[MLP]": "create self.Wi, self.Wo as nn.Linear layers",
    "test_layer_names[GLU]": "unexpected ['w1.weight'",
    "test_parameter_shapes[GLU]": "no parameter Wv.weight",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.fc1 = nn.Linear(hidden_dim, intermediate_dim)
        self.fc2 = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.fc2(self.act(self.fc1(x))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.w1 = nn.Linear(hidden_dim, intermediate_dim)  # gate
        self.w3 = nn.Linear(hidden_dim, intermediate_dim)  # value
        self.w2 = nn.Linear(intermediate_dim, hidden_dim)  # down
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.w2(self.act(self.w1(x)) * self.w3(x)))
