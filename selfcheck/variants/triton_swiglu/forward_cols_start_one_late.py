"""Wrong: the forward kernel's column offsets start one late (+ 1, still masked): its first element is never written."""

EXPECT_FAILURES = {
    'test_forward_float32[2d]': {'cause': 'forward: elements never written', 'says': '(never written: (row 0, column 0))'},
    'test_forward_float32[1d]': {'cause': 'forward: elements never written', 'says': '(never written: element 0)'},
}

EDITS = [
    ("    cols = (pid % blocks_per_row) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n    in_row = cols < n_cols\n\n    gate = tl.load(gate_ptr",
     "    cols = (pid % blocks_per_row) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE) + 1\n    in_row = cols < n_cols\n\n    gate = tl.load(gate_ptr"),
]
