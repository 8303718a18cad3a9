"""Wrong: FusedGatedMLP.forward calls gated_projection directly instead of GatedProjectionFunction.apply, so no gradient reaches x, Wg or Wv (TODO 5)."""

# Its output is right; its backward is not there: the kernel's output carries no gradient, and the block
# never applies the Function whose backward (TODO 4) gives them.
EXPECT_FAILURES = {
    'test_block_gradients': {'says': 'must go through GatedProjectionFunction.apply'},
}

EDITS = [
    ("        hidden = GatedProjectionFunction.apply(x, self.Wg.weight, self.Wg.bias, self.Wv.weight, self.Wv.bias,\n"
     "                                               self.activation)\n",
     "        hidden = gated_projection(x, self.Wg.weight, self.Wv.weight, self.Wg.bias, self.Wv.bias, self.activation)\n"),
]
