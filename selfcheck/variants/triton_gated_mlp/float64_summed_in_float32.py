"""Wrong: the kernel's accumulators and biases are tl.float32 whatever COMPUTE_DTYPE says, so float64 tiles are summed into float32."""

# float32 and 16-bit inputs are right. On float64 inputs tl.dot(x, wg, gate) gives float64 sums, so the
# float32 accumulators change type in the K loop: Triton's compiler refuses that loop, and so does the
# suite under the interpreter (which would promote them and come out right to float32 precision only).
# The block tests then judge the block in float32: only the kernel's float64 test is charged (ONLY_NAMED).
EXPECT_FAILURES = {
    'test_forward_float64': {'cause': 'CompilationError in _launch_gated_kernel', 'says': 'Loop-carried variable gate has initial type'},
}

EDITS = [
    ("    gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=COMPUTE_DTYPE)\n    value = tl.zeros((BLOCK_M, BLOCK_N), dtype=COMPUTE_DTYPE)\n",
     "    gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n    value = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n"),
    (".to(COMPUTE_DTYPE)[None, :]", ".to(tl.float32)[None, :]", 2),
]
