"""Wrong: the launch grid is cdiv(n_cols, BLOCK_SIZE) programs, forgetting to multiply by n_rows."""

EDITS = [
    ('    return (n_rows * triton.cdiv(n_cols, block_size),), block_size, num_warps\n',
     '    return (triton.cdiv(n_cols, block_size),), block_size, num_warps\n'),
]
