"""Wrong: FusedSwiGLU.forward computes silu(Wg(x)) * Wv(x) with PyTorch, never calling swiglu (TODO 7)."""

# Its numbers are GLU's: with swiglu replaced by the grader's stand-in its output does not follow, so the
# block's formula, gradients, dtype and dropout do not count for a block that never uses the exercise.
POLICY_TODOS = "7"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_fused_calls_swiglu': {'cause': 'block: result not from swiglu'},
    'test_fused_matches_glu[float64-4d]': {'waits_on': 'test_fused_calls_swiglu'},
    'test_fused_gradients': {'waits_on': 'test_fused_calls_swiglu'},
    'test_fused_dropout_kept_scaled': {'waits_on': 'test_fused_calls_swiglu'},
}

EDITS = [
    ("        return self.drop(self.Wo(swiglu(self.Wg(x), self.Wv(x))))\n",
     "        return self.drop(self.Wo(torch.nn.functional.silu(self.Wg(x)) * self.Wv(x)))\n"),
]
