"""Wrong: both blocks build nn.GELU() and ignore the activation_fn they were given."""

EXPECT_FAILURES = {
    "test_parity_with_reference[relu-MLP]": "uses exact GELU although activation_fn=relu was passed",
    "test_parity_with_reference[silu-GLU]": "build the activation by calling activation_fn()",
    "test_parity_with_reference[gelu_tanh_partial-MLP]": "don't hard-code one",
}

EDITS = [
    ('        self.act = activation_fn()\n',
     '        self.act = nn.GELU()\n', 2),
]
