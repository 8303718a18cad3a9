"""Wrong: the default activation is the tanh approximation of GELU (GPT-2's) instead of exact GELU."""

POLICY_TODOS = "1, 3"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_parity_with_reference[default-MLP]': {'cause': 'hard-coded tanh-approximate GELU'},
    'test_parity_with_reference[default-GLU]': {'cause': 'hard-coded tanh-approximate GELU'},
}

EDITS = [
    ('        activation_fn: ActivationFactory = nn.GELU,\n',
     '        activation_fn: ActivationFactory = lambda: nn.GELU(approximate="tanh"),\n', 2),
]
