"""Wrong: the launch code starts one program per row, (n_rows,), instead of one per block of every row."""

# A launch-code mistake that rows of one block hide: only rows longer than a block show it.
EXPECT_FAILURES = {
    'test_kernels_launched[forward-long-rows]': {'cause': 'launch', 'says': 'Does the grid round down?'},
    'test_kernels_launched[backward-long-rows]': {'cause': 'launch', 'says': 'no program wrote them'},
}

EDITS = [
    ("    return (n_rows * triton.cdiv(n_cols, block_size),), block_size, num_warps\n",
     "    return (n_rows,), block_size, num_warps\n"),
]
