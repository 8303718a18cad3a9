"""Wrong: the default activation_fn is nn.ReLU (the original Transformer's) instead of nn.GELU."""

POLICY_TODOS = "1, 3"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_parity_with_reference[default-MLP]': {'cause': 'hard-coded ReLU'},
    'test_parity_with_reference[default-GLU]': {'cause': 'hard-coded ReLU'},
}

EDITS = [
    ('        activation_fn: ActivationFactory = nn.GELU,\n',
     '        activation_fn: ActivationFactory = nn.ReLU,\n', 2),
]
