"""Wrong: FusedSwiGLU passes Wv(x) as the gate and Wg(x) as the value."""

EXPECT_FAILURES = {
    "test_fused_matches_glu[float64-4d]": "gate from Wg, value from Wv",
}

EDITS = [
    ("        return self.drop(self.Wo(swiglu(self.Wg(x), self.Wv(x))))\n",
     "        return self.drop(self.Wo(swiglu(self.Wv(x), self.Wg(x))))\n"),
]
