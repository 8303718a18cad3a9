"""Wrong: the backward kernel stores grad_gate through grad_value_ptr, so grad_gate is never written and grad_value twice."""

EXPECT_FAILURES = {
    'test_backward_float32[2d]': {'cause': 'backward: elements never written'},
}

EDITS = [
    ("    tl.store(grad_gate_ptr + row * grad_gate_row_stride + cols,\n",
     "    tl.store(grad_value_ptr + row * grad_value_row_stride + cols,\n"),
]
