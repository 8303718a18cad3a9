"""Wrong: the GLU forward counts bias adds even with bias=False."""

EDITS = [
    ('    bias_adds = 2 * intermediate_dim + hidden_dim if bias else 0',
     '    bias_adds = 2 * intermediate_dim + hidden_dim'),
]

EXPECT_FAILURES = {
    'test_forward_flops[GLU]': {'cause': 'bias adds without bias'},
}
