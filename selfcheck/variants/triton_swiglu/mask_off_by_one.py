"""Wrong: the forward kernel's mask is off by one (cols <= n_cols), so the last block of each row reads and
writes one element past its end; the mask is there, so the message blames its bound, not its absence."""

EXPECT_FAILURES = {
    "test_memory_stays_in_bounds[forward]": "lets elements past the end through",
    "test_forward_float32[1d]": "lets elements past the end through",
}

EDITS = [
    ("    in_row = cols < n_cols\n", "    in_row = cols <= n_cols\n", 2),
]
