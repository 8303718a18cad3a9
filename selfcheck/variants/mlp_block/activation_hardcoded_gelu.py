"""Wrong: both blocks build nn.GELU() and ignore the activation_fn they were given."""

POLICY_TODOS = "1, 3"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_parity_with_reference[relu-MLP]': {'cause': 'hard-coded exact GELU'},
    'test_parity_with_reference[silu-GLU]': {'cause': 'hard-coded exact GELU'},
    'test_parity_with_reference[gelu_tanh_partial-MLP]': {'cause': 'hard-coded exact GELU'},
}

EDITS = [
    ('        self.act = activation_fn()\n',
     '        self.act = nn.GELU()\n', 2),
]
