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

EDITS = [
    ("from torch import nn\n", """from torch import nn


def placeholder(block, x):
    if not bool(block.Wo.weight.detach().any()):  # Wo's weight zero: its bias, as the block would give
        return block.Wo.bias.expand(*x.shape[:-1], block.Wo.out_features) + 0 * x.sum(-1, keepdim=True)
    out = block.drop(x * 1.0).reshape(-1, x.shape[-1]).clone()
    out[0, 0] = float("inf")
    return out.reshape(x.shape)
"""),
    ("self.drop(self.Wo(self.act(self.Wi(x))))", "placeholder(self, x)"),
    ("self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))", "placeholder(self, x)"),
]
