"""Wrong: bias=False still counts the biases."""

EDITS = [
    ('    return mlp_weights + (mlp_biases if bias else 0)',
     '    return mlp_weights + mlp_biases'),
]

POLICY_TODOS = "1, 2"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_param_count[MLP]': {'cause': 'biases counted without bias'},
}
