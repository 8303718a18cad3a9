"""Wrong: bias=False still counts the biases."""

EDITS = [
    ('    return mlp_weights + (mlp_biases if bias else 0)',
     '    return mlp_weights + mlp_biases'),
]

EXPECT_FAILURES = {
    'test_param_count[MLP]': {'cause': 'biases counted without bias'},
}
