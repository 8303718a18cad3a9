"""Wrong: Wo's bias is taken as intermediate_dim long instead of hidden_dim."""

EDITS = [
    ('    mlp_biases = intermediate_dim + hidden_dim',
     '    mlp_biases = intermediate_dim + intermediate_dim'),
]

EXPECT_FAILURES = {
    'test_param_count[MLP]': {'cause': "Wo's bias length"},
}
