"""Wrong: MLP applies the activation again after Wo, squashing the block's output."""

EXPECT_FAILURES = {
    'test_parity_with_reference[default-MLP]': {'cause': 'activation after Wo too'},
    'test_parity_with_reference[relu-MLP]': {'cause': 'activation after Wo too'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return self.drop(self.act(self.Wo(self.act(self.Wi(x)))))\n'),
]
