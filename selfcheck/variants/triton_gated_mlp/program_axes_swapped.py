"""Wrong: the kernel reads its column tile from the grid's first axis, against TODO 1's program (pid_m, pid_n)."""

# Its own launch code swaps the grid to match, so the file alone computes the right values; but the
# kernel tests launch the kernel with the given _launch_gated_kernel, where the row tiles past the
# column count are never written: the formula tests fail, and nothing else (ONLY_NAMED). The launch
# and the block are judged against the kernel on the grid the file's own launch uses, and keep their points.
EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': 'never_written', 'says': 'The given _launch_gated_kernel launches'},
    'test_forward_float32[gelu]': {'cause': 'never_written'},
    'test_forward_float32[gelu_tanh]': {'cause': 'never_written'},
    'test_forward_float32[relu]': {'cause': 'never_written'},
    'test_forward_float32[sigmoid]': {'cause': 'never_written'},
    'test_forward_float64': {'cause': 'never_written'},
    'test_forward_16bit[bfloat16]': {'cause': 'never_written'},
    'test_forward_16bit[float16]': {'cause': 'never_written'},
}

EDITS = [
    ("    pid_m = tl.program_id(0)\n    pid_n = tl.program_id(1)\n", "    pid_n = tl.program_id(0)\n    pid_m = tl.program_id(1)\n"),
    ("        grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))\n",
     "        grid = (triton.cdiv(n, BLOCK_N), triton.cdiv(m, BLOCK_M))\n"),
]
