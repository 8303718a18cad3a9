"""Wrong: both kernels drop their masks on float64 inputs (COMPUTE_DTYPE float64), the reference otherwise."""

# On float64 inputs the last block of a row reads and writes past its end. The float64 value tests leave accesses out
# of bounds apart, so the bounds tests, which run every dtype, are the ones to charge, as for a kernel unmasked in
# every dtype; nothing built on the kernels waits on them.
EXPECT_FAILURES = {
    'test_memory_stays_in_bounds[forward]': {'cause': 'OutOfBoundsAccess in swiglu_forward', 'says': 'float64 inputs'},
    'test_memory_stays_in_bounds[backward]': {'cause': 'OutOfBoundsAccess in swiglu_backward', 'says': 'float64 inputs'},
}

EDITS = [
    ("    in_row = cols < n_cols\n",
     "    in_row = cols < n_cols\n    if COMPUTE_DTYPE == tl.float64:\n        in_row = cols >= 0\n", 2),
]
