"""Wrong: the kernel reads x as if it were contiguous (row * K + k), ignoring the strides the launch passes."""

EXPECT_FAILURES = {
    "test_forward_noncontiguous_x[transposed]": "check the K loop, the tiles' offsets and strides",
    "test_forward_noncontiguous_x[strided]": "some elements were never written",
}

EDITS = [
    ("rows[:, None] * stride_xm + ks[None, :] * stride_xk", "rows[:, None] * K + ks[None, :]"),
]
