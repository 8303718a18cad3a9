"""Correct: MLP is an nn.Sequential of named children and GLU registers its layers with add_module."""

from collections import OrderedDict

from torch import nn

EXPECT_FAILURES = {}


class MLP(nn.Sequential):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__(OrderedDict([
            ("Wi", nn.Linear(hidden_dim, intermediate_dim)),
            ("act", activation_fn()),
            ("Wo", nn.Linear(intermediate_dim, hidden_dim)),
            ("drop", nn.Dropout(dropout)),
        ]))


class GLU(nn.Module):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        # the names given here are the state_dict prefixes, just like attribute assignment
        for name in ("Wv", "Wg"):
            self.add_module(name, nn.Linear(hidden_dim, intermediate_dim))
        self.add_module("Wo", nn.Linear(intermediate_dim, hidden_dim))
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))
