"""Wrong: the MLP backward is taken as exactly twice the forward."""

EDITS = [
    ('    matmuls = 2 * 2 * (2 * hidden_dim * intermediate_dim)',
     '    return 2 * mlp_forward_flops(hidden_dim, intermediate_dim, bias)'),
]

POLICY_TODOS = "5"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_backward_flops[MLP]': {'cause': 'twice the forward'},
}
