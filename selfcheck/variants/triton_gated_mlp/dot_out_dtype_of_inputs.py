"""Wrong: each K step's tl.dot is asked for a product in the inputs' dtype (out_dtype=x.dtype), which Triton refuses for 16-bit tiles."""

EXPECT_FAILURES = {
    'test_forward_16bit[bfloat16]': {'cause': 'CompilationError in _launch_gated_kernel', 'says': 'out_dtype is the dtype it accumulates in'},
}

EDITS = [
    ("        gate = tl.dot(x, wg, gate, input_precision=\"ieee\")\n        value = tl.dot(x, wv, value, input_precision=\"ieee\")\n",
     "        gate += tl.dot(x, wg, input_precision=\"ieee\", out_dtype=x.dtype)\n"
     "        value += tl.dot(x, wv, input_precision=\"ieee\", out_dtype=x.dtype)\n"),
]
