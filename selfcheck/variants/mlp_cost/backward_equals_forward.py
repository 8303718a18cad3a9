"""Wrong: the backward pass is counted as the forward pass."""

EDITS = [
    ('    matmuls = 2 * 2 * (2 * hidden_dim * intermediate_dim)',
     '    return mlp_forward_flops(hidden_dim, intermediate_dim, bias)'),
    ('    matmuls = 2 * 3 * (2 * hidden_dim * intermediate_dim)',
     '    return glu_forward_flops(hidden_dim, intermediate_dim, bias)'),
]

POLICY_TODOS = "5, 6"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_backward_flops[MLP]': {'cause': 'backward counted like the forward'},
    'test_backward_flops[GLU]': {'cause': 'backward counted like the forward'},
}
