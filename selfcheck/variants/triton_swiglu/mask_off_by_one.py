"""Wrong: both kernels' masks are off by one (cols <= n_cols): past each row's end, through a mask."""

POLICY_TODOS = "1, 2"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_memory_stays_in_bounds[forward]': {'cause': 'OutOfBoundsAccess in swiglu_forward', 'says': 'lets elements past the end through'},
    'test_forward_float32[1d]': {'cause': 'OutOfBoundsAccess in swiglu_forward', 'says': 'lets elements past the end through'},
}

EDITS = [
    ("    in_row = cols < n_cols\n", "    in_row = cols <= n_cols\n", 2),
]
