"""Wrong: the MLP forward leaves out the activation."""

EDITS = [
    ('    activation = intermediate_dim\n',
     '    activation = 0\n'),
]

EXPECT_FAILURES = {
    'test_forward_flops[MLP]': {'cause': 'activation not counted'},
}
