"""Wrong: FusedGatedMLP hands gated_projection the value's layer where the gate's goes, and the gate's where the value's goes."""

EXPECT_FAILURES = {
    'test_block_matches_glu[silu]': {'cause': 'FusedGatedMLP: gate and value swapped'},
    'test_block_matches_glu[gelu]': {'cause': 'FusedGatedMLP: gate and value swapped', 'says': 'Wo(gated_projection(x, Wv, Wg))'},
    'test_block_gradients': {'waits_on': 'test_block_matches_glu[gelu]'},
}

EDITS = [
    ("        hidden = GatedProjectionFunction.apply(x, self.Wg.weight, self.Wg.bias, self.Wv.weight, self.Wv.bias,\n",
     "        hidden = GatedProjectionFunction.apply(x, self.Wv.weight, self.Wv.bias, self.Wg.weight, self.Wg.bias,\n"),
]
