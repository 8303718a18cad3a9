"""Wrong: the store leaves out the mask on M, so the last row tile writes past the output's last token."""

# Every value it stores inside the output is right: the float32 value tests, which judge bounds, and the bounds test
# charge it; the float64 and 16-bit value tests (bounds apart) and everything built on the kernel do not.
EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': 'OutOfBoundsAccess in _launch_gated_kernel', 'says': 'tl.store'},
    'test_forward_float32[gelu]': {'cause': 'OutOfBoundsAccess in _launch_gated_kernel'},
    'test_forward_float32[gelu_tanh]': {'cause': 'OutOfBoundsAccess in _launch_gated_kernel'},
    'test_forward_float32[relu]': {'cause': 'OutOfBoundsAccess in _launch_gated_kernel'},
    'test_forward_float32[sigmoid]': {'cause': 'OutOfBoundsAccess in _launch_gated_kernel'},
    'test_memory_stays_in_bounds': {'cause': 'OutOfBoundsAccess in _launch_gated_kernel', 'says': 'its M index reaches'},
}

EDITS = [
    ("             mask=(rows[:, None] < M) & (cols[None, :] < N))", "             mask=cols[None, :] < N)"),
]
