"""Wrong: both forwards are placeholders (dropout of the input) that plant one inf in the output."""

# They also give Wo's bias when Wo's weight is zero: an inf once made the structure check's tolerance, taken from
# the output, infinite, and the placeholder earned the construction, shape, dtype and dropout tests (15 of 25 a
# block). Written before grading: nothing is computed from Wi, Wv, Wg or Wo's weight; a block's output on finite weights
# and inputs is finite. Every test of both blocks is lost, the property tests waiting on the parity test.
EXPERT_VERDICT = "Every test of both blocks lost, 50 of 50: TODO 2 and TODO 4 compute nothing."

EXPECT_FAILURES = {
    'test_layer_names[MLP]': {'waits_on': 'test_parity_with_reference[default-MLP]'},
    'test_layer_names[GLU]': {'waits_on': 'test_parity_with_reference[default-GLU]'},
    'test_dropout_share_of_zeros[MLP]': {'waits_on': 'test_parity_with_reference[default-MLP]'},
    'test_dtype_kept[float64-GLU]': {'waits_on': 'test_parity_with_reference[default-GLU]'},
    'test_parity_with_reference[default-MLP]': {'cause': 'activation_fn ignored'},
}

import torch
from torch import nn


class _Base(nn.Module):
    def forward(self, x):
        w = self.Wo.weight
        if not bool(w.detach().any()):
            return self.Wo.bias.expand(*x.shape[:-1], w.shape[0]) + 0 * x.sum(-1, keepdim=True)
        out = self.drop(x * 1.0)
        flat = out.reshape(-1, out.shape[-1])
        mask = torch.zeros_like(flat)
        mask[0, 0] = float("inf")
        return (flat + mask).reshape(out.shape)


class MLP(_Base):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wi = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)


class GLU(_Base):
    def __init__(self, hidden_dim, intermediate_dim, activation_fn=nn.GELU, dropout=0.0):
        super().__init__()
        self.Wv = nn.Linear(hidden_dim, intermediate_dim)
        self.Wg = nn.Linear(hidden_dim, intermediate_dim)
        self.Wo = nn.Linear(intermediate_dim, hidden_dim)
        self.act = activation_fn()
        self.drop = nn.Dropout(dropout)
