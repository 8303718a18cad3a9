"""Wrong: the kernels compute but store nothing (the stub's raise lines deleted, the stores not yet written)."""

EXPECT_FAILURES = {
    "test_forward_float32[2d]": "no element was written",
    "test_memory_stays_in_bounds[forward]": "counts once _swiglu_forward_kernel runs and writes its results",
    "test_memory_stays_in_bounds[backward]": "counts once _swiglu_backward_kernel runs and writes its results",
    "test_inputs_unmodified[forward-contiguous]": "counts once _swiglu_forward_kernel runs and writes",
    "test_inputs_unmodified[backward-chunk]": "counts once _swiglu_backward_kernel runs and writes",
    "test_forward_empty": "counts once _swiglu_forward_kernel runs and writes",
    "test_backward_empty": "counts once _swiglu_backward_kernel runs and writes",
}

EDITS = [
    ("    tl.store(out_ptr + row * out_row_stride + cols, out.to(out_ptr.dtype.element_ty), mask=in_row)\n", ""),
    ("    tl.store(grad_gate_ptr + row * grad_gate_row_stride + cols,\n"
     "             grad_gate.to(grad_gate_ptr.dtype.element_ty), mask=in_row)\n", ""),
    ("    tl.store(grad_value_ptr + row * grad_value_row_stride + cols,\n"
     "             grad_value.to(grad_value_ptr.dtype.element_ty), mask=in_row)\n", ""),
]
