"""Wrong: GLU hard-codes nn.SiLU() (as LLaMA's FeedForward does F.silu) and ignores activation_fn."""

POLICY_TODOS = "3"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_parity_with_reference[default-GLU]': {'cause': 'hard-coded SiLU'},
    'test_parity_with_reference[relu-GLU]': {'cause': 'hard-coded SiLU'},
    'test_parity_with_reference[gelu_tanh_partial-GLU]': {'cause': 'hard-coded SiLU'},
}

EDITS = [
    ('self.Wg = nn.Linear(hidden_dim, intermediate_dim)\n        self.act = activation_fn()',
     'self.Wg = nn.Linear(hidden_dim, intermediate_dim)\n        self.act = nn.SiLU()'),
]
