"""Wrong: only the weights are counted, never the biases."""

EDITS = [
    ('    return mlp_weights + (mlp_biases if bias else 0)',
     '    return mlp_weights'),
    ('    return glu_weights + (glu_biases if bias else 0)',
     '    return glu_weights'),
]

POLICY_TODOS = "1, 2"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_param_count[MLP]': {'cause': 'weights only'},
    'test_param_count[GLU]': {'cause': 'weights only'},
}
