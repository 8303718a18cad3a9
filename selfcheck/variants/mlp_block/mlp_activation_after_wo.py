"""Wrong: MLP applies the activation again after Wo, squashing the block's output."""

EXPECT_FAILURES = {
    "test_parity_with_reference[default-MLP]": "the activation is applied after Wo as well",
    "test_parity_with_reference[relu-MLP]": "it belongs only between Wi and Wo",
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return self.drop(self.act(self.Wo(self.act(self.Wi(x)))))\n'),
]
