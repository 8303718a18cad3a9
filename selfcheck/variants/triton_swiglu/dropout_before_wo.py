"""Wrong: FusedSwiGLU applies dropout to the hidden activations, before Wo."""

POLICY_TODOS = "7"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    "test_fused_dropout_share_of_zeros": "exactly zero",
}

EDITS = [
    ("        return self.drop(self.Wo(swiglu(self.Wg(x), self.Wv(x))))\n",
     "        return self.Wo(self.drop(swiglu(self.Wg(x), self.Wv(x))))\n"),
]
