"""Wrong: the forward counts one FLOP per weight (multiply-accumulates), not two."""

EDITS = [
    ('    matmuls = 2 * (2 * hidden_dim * intermediate_dim)',
     '    matmuls = 2 * (hidden_dim * intermediate_dim)'),
    ('    matmuls = 3 * (2 * hidden_dim * intermediate_dim)',
     '    matmuls = 3 * (hidden_dim * intermediate_dim)'),
]

POLICY_TODOS = "3, 4"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_forward_flops[MLP]': {'cause': 'multiply-accumulates'},
    'test_forward_flops[GLU]': {'cause': 'multiply-accumulates'},
}
