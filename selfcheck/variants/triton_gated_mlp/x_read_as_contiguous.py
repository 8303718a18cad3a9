"""Wrong: the kernel reads x as if it were contiguous (row * K + k), ignoring the strides the launch passes."""

EXPECT_FAILURES = {
    'test_forward_noncontiguous_x[transposed]': {'cause': 'x read as contiguous'},
    'test_forward_noncontiguous_x[strided]': {'cause': 'x read as contiguous'},
}

EDITS = [
    ("rows[:, None] * stride_xm + ks[None, :] * stride_xk", "rows[:, None] * K + ks[None, :]"),
]
