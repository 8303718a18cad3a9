"""Wrong: the backward kernel stores each gradient through the other's pointer."""

EXPECT_FAILURES = {
    "test_backward_float32[2d]": "swapped",
    "test_backward_noncontiguous[strided]": "swapped",
}

EDITS = [
    ("grad_gate.to(grad_gate_ptr.dtype.element_ty)", "grad_value.to(grad_gate_ptr.dtype.element_ty)"),
    ("grad_value.to(grad_value_ptr.dtype.element_ty)", "grad_gate.to(grad_value_ptr.dtype.element_ty)"),
]
