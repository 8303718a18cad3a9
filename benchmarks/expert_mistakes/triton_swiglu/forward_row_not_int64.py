"""Wrong: in the forward kernel I left the row index as int32 instead of converting it to tl.int64 before multiplying by the stride."""

EDITS = [
    ('    row = (pid // blocks_per_row).to(tl.int64)  # int64: row * row_stride can pass 2**31\n',
     '    row = pid // blocks_per_row\n'),
]
