"""Wrong: the K loop counts tiles (range(cdiv(K, BLOCK_K))) but uses the tile index as the K offset, so the steps overlap instead of advancing BLOCK_K."""

EDITS = [
    ('    for k0 in range(0, K, BLOCK_K):\n',
     '    for k0 in range(0, tl.cdiv(K, BLOCK_K)):\n'),
]
