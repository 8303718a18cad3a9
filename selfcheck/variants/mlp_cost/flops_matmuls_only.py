"""Wrong: the MLP forward counts the matrix products alone, as FlopCounterMode does."""

EDITS = [
    ('    return matmuls + bias_adds + activation\n',
     '    return matmuls\n'),
]

EXPECT_FAILURES = {
    'test_forward_flops[MLP]': {'cause': 'matrix products only'},
}
