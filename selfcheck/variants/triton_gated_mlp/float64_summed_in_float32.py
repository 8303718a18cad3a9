"""Wrong: the kernel's accumulators are tl.float32 whatever COMPUTE_DTYPE says, so float64 tiles are summed into float32."""

# float32 and 16-bit inputs are right; the block runs in float64, and waits on the kernel's float64 test
# instead of charging dropout or the wiring for what the kernel got wrong.
EXPECT_FAILURES = {
    "test_forward_float64": "gated_projection in float64",
    "test_block_dropout": "counts once _gated_projection_kernel computes the projection in float64",
    "test_block_gradients": "counts once _gated_projection_kernel computes the projection in float64",
}

EDITS = [
    ("    gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=COMPUTE_DTYPE)\n    value = tl.zeros((BLOCK_M, BLOCK_N), dtype=COMPUTE_DTYPE)\n",
     "    gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n    value = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n"),
]
