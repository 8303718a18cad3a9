"""Wrong: the forward counts one FLOP per weight (multiply-accumulates), not two."""

EDITS = [
    ('    matmuls = 2 * (2 * hidden_dim * intermediate_dim)',
     '    matmuls = 2 * (hidden_dim * intermediate_dim)'),
    ('    matmuls = 3 * (2 * hidden_dim * intermediate_dim)',
     '    matmuls = 3 * (hidden_dim * intermediate_dim)'),
]

EXPECT_FAILURES = {
    'test_forward_flops[MLP]': {'cause': 'multiply-accumulates'},
    'test_forward_flops[GLU]': {'cause': 'multiply-accumulates'},
}
