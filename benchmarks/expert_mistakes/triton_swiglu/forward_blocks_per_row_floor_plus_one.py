"""Wrong: in the forward kernel I computed blocks per row by hand as n_cols // BLOCK_SIZE + 1, one too many when n_cols is a multiple of BLOCK_SIZE."""

EDITS = [
    ('    pid = tl.program_id(0)\n    blocks_per_row = tl.cdiv(n_cols, BLOCK_SIZE)\n    row = (pid // blocks_per_row).to(tl.int64)  # int64: row * row_stride can pass 2**31\n',
     '    pid = tl.program_id(0)\n    blocks_per_row = n_cols // BLOCK_SIZE + 1\n    row = (pid // blocks_per_row).to(tl.int64)  # int64: row * row_stride can pass 2**31\n'),
]
