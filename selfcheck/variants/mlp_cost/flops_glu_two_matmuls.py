"""Wrong: the GLU forward counts two matrix products, as in the MLP."""

EDITS = [
    ('    matmuls = 3 * (2 * hidden_dim * intermediate_dim)',
     '    matmuls = 2 * (2 * hidden_dim * intermediate_dim)'),
]

EXPECT_FAILURES = {
    'test_forward_flops[GLU]': {'cause': 'two matrix products'},
}
