"""Wrong: FusedSwiGLU passes Wv(x) as the gate and Wg(x) as the value."""

EXPECT_FAILURES = {
    "test_fused_matches_glu[float64-4d]": {"cause": "FusedSwiGLU: gate and value swapped", "says": "Wo(swiglu(Wv(x), Wg(x)))"},
    "test_fused_matches_glu[float32-3d]": {"cause": "FusedSwiGLU: gate and value swapped"},
    "test_fused_gradients": {"cause": "FusedSwiGLU: gate and value swapped"},
}

EDITS = [
    ("        return self.drop(self.Wo(swiglu(self.Wg(x), self.Wv(x))))\n",
     "        return self.drop(self.Wo(swiglu(self.Wv(x), self.Wg(x))))\n"),
]
