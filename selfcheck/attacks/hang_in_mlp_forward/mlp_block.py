"""Not an attack but a bug a student makes: MLP.forward never returns; GLU is correct. The hang may cost
the MLP task its points, never the GLU task's (each task has its own time budget)."""

from torch import nn


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi, self.act = nn.Linear(hidden_dim, intermediate_dim), activation_fn()
        self.Wo, self.drop = nn.Linear(intermediate_dim, hidden_dim), nn.Dropout(dropout)

    def forward(self, x):
        while True:
            pass


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv, self.Wg = nn.Linear(hidden_dim, intermediate_dim), nn.Linear(hidden_dim, intermediate_dim)
        self.act, self.Wo = activation_fn(), nn.Linear(intermediate_dim, hidden_dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))
