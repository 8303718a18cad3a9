"""Wrong: the forward kernel loads and stores without a mask, so a row's last block reads and writes past its end."""

POLICY_TODOS = "1"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_memory_stays_in_bounds[forward]': {'cause': 'OutOfBoundsAccess in swiglu_forward', 'says': 'missing mask'},
    'test_forward_float32[1d]': {'cause': 'OutOfBoundsAccess in swiglu_forward', 'says': '_swiglu_forward_kernel'},
}

EDITS = [
    ("    gate = tl.load(gate_ptr + row * gate_row_stride + cols, mask=in_row).to(COMPUTE_DTYPE)\n"
     "    value = tl.load(value_ptr + row * value_row_stride + cols, mask=in_row).to(COMPUTE_DTYPE)\n"
     "    out = gate",
     "    gate = tl.load(gate_ptr + row * gate_row_stride + cols).to(COMPUTE_DTYPE)\n"
     "    value = tl.load(value_ptr + row * value_row_stride + cols).to(COMPUTE_DTYPE)\n"
     "    out = gate"),
    ("out.to(out_ptr.dtype.element_ty), mask=in_row)", "out.to(out_ptr.dtype.element_ty))"),
]
