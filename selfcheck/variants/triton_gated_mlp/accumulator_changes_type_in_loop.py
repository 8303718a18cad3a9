"""Wrong: float32 accumulators summing float64 tiles (gate += tl.dot(x, wg)): the interpreter promotes them, Triton's compiler refuses the loop."""

# On a GPU the kernel does not compile for float64 x ("Loop-carried variable gate has initial type fp32
# but is re-assigned to fp64 in loop"); the suite refuses it as the compiler does. float32 x is unaffected.
EXPECT_FAILURES = {
    'test_forward_float64': {'cause': 'CompilationError in _launch_gated_kernel', 'says': 'Loop-carried variable'},
}

EDITS = [
    ("    gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=COMPUTE_DTYPE)\n    value = tl.zeros((BLOCK_M, BLOCK_N), dtype=COMPUTE_DTYPE)\n",
     "    gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n    value = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n"),
    ('        gate = tl.dot(x, wg, gate, input_precision="ieee")\n        value = tl.dot(x, wv, value, input_precision="ieee")\n',
     '        gate += tl.dot(x, wg, input_precision="ieee")\n        value += tl.dot(x, wv, input_precision="ieee")\n'),
]
