"""Wrong: a fresh nn.Dropout is built inside forward; it is always in training mode, even in eval."""

from torch import nn

EXPECT_FAILURES = {
    "test_dropout_off_in_eval_mode[MLP]": "an nn.Dropout built inside forward, keeps dropping",
    "test_dropout_off_in_eval_mode[GLU]": "dropout must do nothing in eval mode",
}


class MLP(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.dropout = dropout

    def forward(self, x):
        return nn.Dropout(self.dropout)(self.Wo(self.act(self.Wi(x))))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.dropout = dropout

    def forward(self, x):
        return nn.Dropout(self.dropout)(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))
