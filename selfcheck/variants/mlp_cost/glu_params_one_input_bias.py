"""Wrong: GLU counts one bias of intermediate_dim numbers where Wg and Wv have one each."""

EDITS = [
    ('    glu_biases = 2 * intermediate_dim + hidden_dim',
     '    glu_biases = intermediate_dim + hidden_dim'),
]

EXPECT_FAILURES = {
    'test_param_count[GLU]': {'cause': 'one bias missing'},
}
