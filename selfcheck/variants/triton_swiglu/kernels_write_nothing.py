"""Wrong: the kernels compute but store nothing (the stub's raise lines deleted, the stores not yet written)."""

EXPECT_FAILURES = {
    'test_forward_float32[2d]': {'cause': 'forward: elements never written'},
    'test_memory_stays_in_bounds[forward]': {'waits_on': 'test_forward_float32'},
    'test_memory_stays_in_bounds[backward]': {'waits_on': 'test_backward_float32'},
    'test_inputs_unmodified[forward-contiguous]': {'waits_on': 'test_forward_float32'},
    'test_inputs_unmodified[backward-chunk]': {'waits_on': 'test_backward_float32'},
    'test_forward_empty': {'waits_on': 'test_forward_float32'},
    'test_backward_empty': {'waits_on': 'test_backward_float32'},
}

EDITS = [
    ("    tl.store(out_ptr + row * out_row_stride + cols, out.to(out_ptr.dtype.element_ty), mask=in_row)\n", ""),
    ("    tl.store(grad_gate_ptr + row * grad_gate_row_stride + cols,\n"
     "             grad_gate.to(grad_gate_ptr.dtype.element_ty), mask=in_row)\n", ""),
    ("    tl.store(grad_value_ptr + row * grad_value_row_stride + cols,\n"
     "             grad_value.to(grad_value_ptr.dtype.element_ty), mask=in_row)\n", ""),
]
