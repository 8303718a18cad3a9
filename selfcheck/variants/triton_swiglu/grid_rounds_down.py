"""Wrong: the grid is n // BLOCK_SIZE programs per row, fewer than the blocks: the last rows are never computed."""

# A launch-code mistake: the kernels are right (the kernel tests pass), the functions leave elements unwritten.
EXPECT_FAILURES = {
    'test_kernels_launched[forward-contiguous]': {'cause': 'launch', 'says': 'grid round down'},
    'test_kernels_launched[backward-chunk-bfloat16]': {'cause': 'launch', 'says': 'grid round down'},
}

EDITS = [
    ("    return (n_rows * triton.cdiv(n_cols, block_size),), block_size, num_warps\n",
     "    return (n_rows * (n_cols // block_size),), block_size, num_warps\n"),
]
