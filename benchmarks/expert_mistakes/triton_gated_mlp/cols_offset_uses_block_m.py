"""Wrong: the tile's column offsets use BLOCK_M instead of BLOCK_N (pid_n * BLOCK_M); harmless only while the tiles are square."""

EDITS = [
    ('    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)\n',
     '    cols = pid_n * BLOCK_M + tl.arange(0, BLOCK_N)\n'),
]
