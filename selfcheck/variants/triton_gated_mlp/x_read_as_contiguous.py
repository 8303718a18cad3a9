"""Wrong: the kernel reads x as if it were contiguous (row * K + k), ignoring the strides the launch passes."""

EXPECT_FAILURES = {
    "test_forward_noncontiguous_x[transposed]": "reads the x as contiguous rows",
    "test_forward_noncontiguous_x[strided]": "index each tile with the strides it is given",
}

EDITS = [
    ("rows[:, None] * stride_xm + ks[None, :] * stride_xk", "rows[:, None] * K + ks[None, :]"),
]
