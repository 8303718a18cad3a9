"""Wrong: the forward kernel gates with sigmoid(gate) instead of silu(gate) = gate * sigmoid(gate)."""

EXPECT_FAILURES = {
    "test_forward_float32[2d]": "sigmoid(gate) * value: SiLU is gate * sigmoid(gate)",
    "test_forward_16bit[bfloat16]": "SiLU is gate * sigmoid(gate)",
}

EDITS = [
    ("    out = gate * tl.sigmoid(gate) * value  # silu(gate) * value\n",
     "    out = tl.sigmoid(gate) * value\n"),
]
