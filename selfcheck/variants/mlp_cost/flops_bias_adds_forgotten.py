"""Wrong: the MLP forward leaves out the bias adds."""

EDITS = [
    ('    bias_adds = intermediate_dim + hidden_dim if bias else 0',
     '    bias_adds = 0'),
]

EXPECT_FAILURES = {
    'test_forward_flops[MLP]': {'cause': 'bias adds missing'},
}
