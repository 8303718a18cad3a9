"""Wrong: FusedGatedMLP.forward computes act(Wg(x)) * Wv(x) with PyTorch's layers, never calling gated_projection (TODO 5)."""

# Its numbers are GLU's: the block tests see that its output does not follow gated_projection when the grader
# replaces that, so neither the formula nor dropout counts for a block that never uses the exercise.
POLICY_TODOS = "5"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_block_matches_glu[silu]': {'cause': 'block: projection not from gated_projection'},
    'test_block_matches_glu[gelu]': {'cause': 'block: projection not from gated_projection'},
    'test_block_gradients': {'waits_on': 'test_block_matches_glu[silu]'},
    'test_block_dropout': {'waits_on': 'test_block_matches_glu[silu]'},
}

EDITS = [
    ("        hidden = GatedProjectionFunction.apply(x, self.Wg.weight, self.Wg.bias, self.Wv.weight, self.Wv.bias,\n"
     "                                               self.activation)\n",
     "        hidden = _torch_activation(self.activation)(self.Wg(x)) * self.Wv(x)\n"),
]
