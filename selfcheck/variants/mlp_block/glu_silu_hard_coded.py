"""Wrong: GLU hard-codes nn.SiLU() (as LLaMA's FeedForward does F.silu) and ignores activation_fn."""

EXPECT_FAILURES = {
    "test_parity_with_reference[default-GLU]": "by calling activation_fn() rather than hard-coding one",
    "test_parity_with_reference[relu-GLU]": "don't hard-code one",
    "test_parity_with_reference[gelu_tanh_partial-GLU]": "by calling activation_fn()",
}

EDITS = [
    ('self.Wg = nn.Linear(hidden_dim, intermediate_dim)\n        self.act = activation_fn()',
     'self.Wg = nn.Linear(hidden_dim, intermediate_dim)\n        self.act = nn.SiLU()'),
]
