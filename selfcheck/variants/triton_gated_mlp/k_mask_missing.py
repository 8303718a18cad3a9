"""Wrong: the loads of x leave out the mask on K, so the last step reads past each row of x."""

# Only the formula tests run on a hidden width no tile divides (45, and 509 in 16 bits): the layout, no-bias
# and untouched-input tests, and all that is built on the kernel, run on 64 features and pass.
EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': 'OutOfBoundsAccess in _launch_gated_kernel', 'says': 'its K index reaches 47, past K = 45'},
    'test_forward_float64': {'cause': 'OutOfBoundsAccess in _launch_gated_kernel', 'says': 'OutOfBoundsAccess'},
}

EDITS = [
    ("                    mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)",
     "                    mask=rows[:, None] < M, other=0.0)"),
]
