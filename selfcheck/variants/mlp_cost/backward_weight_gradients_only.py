"""Wrong: the MLP backward counts the weights' gradients and forgets the input's."""

EDITS = [
    ('    matmuls = 2 * 2 * (2 * hidden_dim * intermediate_dim)',
     '    matmuls = 2 * (2 * hidden_dim * intermediate_dim)'),
]

EXPECT_FAILURES = {
    'test_backward_flops[MLP]': {'cause': 'backward products counted once'},
}
