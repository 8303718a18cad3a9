"""Wrong: the backward kernel stores grad_gate through gate_ptr, into its input, and never writes grad_gate."""

EXPECT_FAILURES = {
    'test_backward_float32[2d]': {'cause': 'backward: inputs overwritten'},
}

EDITS = [
    ("    tl.store(grad_gate_ptr + row * grad_gate_row_stride + cols,\n"
     "             grad_gate.to(grad_gate_ptr.dtype.element_ty), mask=in_row)\n",
     "    tl.store(gate_ptr + row * gate_row_stride + cols,\n"
     "             grad_gate.to(gate_ptr.dtype.element_ty), mask=in_row)\n"),
]
