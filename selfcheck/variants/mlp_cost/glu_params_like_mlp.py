"""Wrong: GLU is counted with the MLP's two weight matrices."""

EDITS = [
    ('    glu_weights = 3 * hidden_dim * intermediate_dim',
     '    glu_weights = 2 * hidden_dim * intermediate_dim'),
    ('    glu_biases = 2 * intermediate_dim + hidden_dim',
     '    glu_biases = intermediate_dim + hidden_dim'),
]

EXPECT_FAILURES = {
    'test_param_count[GLU]': {'cause': 'counted like an MLP'},
}
