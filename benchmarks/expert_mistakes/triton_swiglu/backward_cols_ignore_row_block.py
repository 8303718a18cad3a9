"""Wrong: in the backward kernel I computed the columns as pid * BLOCK_SIZE + arange, forgetting to take the block within the row (pid % blocks_per_row)."""

EDITS = [
    ('    row = (pid // blocks_per_row).to(tl.int64)\n    cols = (pid % blocks_per_row) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n    in_row = cols < n_cols\n',
     '    row = (pid // blocks_per_row).to(tl.int64)\n    cols = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n    in_row = cols < n_cols\n'),
]
