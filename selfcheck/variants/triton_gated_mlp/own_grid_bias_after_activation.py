"""Wrong: program_axes_swapped's kernel and launch (both swapped to match), with the gate's bias added after the activation."""

# On its own grid the kernel writes every tile, but not the projection: the launch and the block are
# judged against the kernel on the given launch's grid only, where it writes some tiles, so they wait
# for the kernel's tests, as they would for any wrong kernel (a grid of the file's own counts only
# where the kernel computes the projection on it).
EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': 'never_written'},
    'test_kernel_does_the_work': {'waits_on': 'test_forward_float32[silu]'},
}

EDITS = [
    ("    pid_m = tl.program_id(0)\n    pid_n = tl.program_id(1)\n", "    pid_n = tl.program_id(0)\n    pid_m = tl.program_id(1)\n"),
    ("        grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))\n",
     "        grid = (triton.cdiv(n, BLOCK_N), triton.cdiv(m, BLOCK_M))\n"),
    ("        gate += tl.load(gate_bias_ptr + cols, mask=cols < N, other=0.0).to(COMPUTE_DTYPE)[None, :]\n", ""),
    ("    out = _activation(gate, ACTIVATION) * value\n",
     "    out = _activation(gate, ACTIVATION) * value\n"
     "    if HAS_BIAS:\n"
     "        out = (_activation(gate, ACTIVATION)\n"
     "               + tl.load(gate_bias_ptr + cols, mask=cols < N, other=0.0).to(COMPUTE_DTYPE)[None, :]) * value\n"),
]
