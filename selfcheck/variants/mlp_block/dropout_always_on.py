"""Wrong: F.dropout(..., training=True) keeps dropping outputs in eval mode."""

import torch.nn.functional as F
from torch import nn

EXPECT_FAILURES = {
    "test_dropout_off_in_eval_mode[MLP]": "dropout must do nothing in eval mode",
    "test_dropout_off_in_eval_mode[GLU]": "F.dropout(..., training=self.training)",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.p = dropout

    def forward(self, x):
        return F.dropout(self.Wo(self.act(self.Wi(x))), p=self.p, training=True)


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.p = dropout

    def forward(self, x):
        return F.dropout(self.Wo(self.act(self.Wg(x)) * self.Wv(x)), p=self.p, training=True)
