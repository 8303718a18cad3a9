"""Wrong: the kernels address gate and value at row * n_cols + cols, ignoring the row strides of h.chunk(2, -1)."""

POLICY_TODOS = "1, 2"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_forward_noncontiguous[chunk]': {'cause': 'forward: read as contiguous'},
    'test_backward_noncontiguous[chunk]': {'cause': 'backward: read as contiguous'},
}

EDITS = [
    ("gate_ptr + row * gate_row_stride + cols", "gate_ptr + row * n_cols + cols", 2),
    ("value_ptr + row * value_row_stride + cols", "value_ptr + row * n_cols + cols", 2),
]
