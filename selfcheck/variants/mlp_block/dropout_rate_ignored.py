"""Wrong: nn.Dropout() is created without the `dropout` argument, so it always drops half."""

from torch import nn

EXPECT_FAILURES = {
    "test_dropout_zero_changes_nothing_in_training[GLU]": "nn.Dropout() drops 0.5 by default",
    "test_dropout_share_of_zeros[MLP]": "nn.Dropout()'s default rate 0.5",
    "test_dropout_kept_outputs_scaled[GLU]": "= 1/(1 - 0.50) instead of 1/(1 - p)",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout()

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wi(x))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout()

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))
