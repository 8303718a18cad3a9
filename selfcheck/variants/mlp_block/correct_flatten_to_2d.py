"""Correct: flattens the leading dimensions with x.reshape(-1, hidden) and restores x.shape at the end."""

from torch import nn

EXPECT_FAILURES = {}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        rows = x.reshape(-1, self.hidden_dim)
        y = self.drop(self.Wo(self.act(self.Wi(rows))))
        return y.reshape(x.shape)


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
        rows = x.reshape(-1, self.hidden_dim)
        y = self.drop(self.Wo(self.act(self.Wg(rows)) * self.Wv(rows)))
        return y.reshape(x.shape)
