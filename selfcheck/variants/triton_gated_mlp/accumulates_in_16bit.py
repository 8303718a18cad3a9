"""Wrong: the sums are kept in the inputs' dtype, each step's tl.dot rounded into them: 16-bit accumulation."""

POLICY_TODOS = "1"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_forward_16bit[bfloat16]': {'cause': '16-bit accumulation'},
    'test_forward_16bit[float16]': {'cause': '16-bit accumulation'},
}

EDITS = [
    ("    gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=COMPUTE_DTYPE)\n    value = tl.zeros((BLOCK_M, BLOCK_N), dtype=COMPUTE_DTYPE)\n",
     "    gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=out_ptr.dtype.element_ty)\n"
     "    value = tl.zeros((BLOCK_M, BLOCK_N), dtype=out_ptr.dtype.element_ty)\n"),
    ("        gate = tl.dot(x, wg, gate, input_precision=\"ieee\")\n        value = tl.dot(x, wv, value, input_precision=\"ieee\")\n",
     "        gate += tl.dot(x, wg, input_precision=\"ieee\").to(out_ptr.dtype.element_ty)\n"
     "        value += tl.dot(x, wv, input_precision=\"ieee\").to(out_ptr.dtype.element_ty)\n"
     "    gate = gate.to(COMPUTE_DTYPE)\n"
     "    value = value.to(COMPUTE_DTYPE)\n"),
]
