"""Wrong: the matched width compares weights only, even with bias=True."""

EDITS = [
    ('    budget = mlp_param_count(hidden_dim, int(mlp_width), bias)',
     '    budget = mlp_param_count(hidden_dim, int(mlp_width), False)'),
    ('    fixed = hidden_dim if bias else 0',
     '    fixed = 0'),
    ('    per_unit = 3 * hidden_dim + (2 if bias else 0)',
     '    per_unit = 3 * hidden_dim'),
]

POLICY_TODOS = "7"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_glu_intermediate_dim': {'cause': 'budget without biases'},
}
