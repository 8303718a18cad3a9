"""Wrong: the activation module is created but never applied, so both blocks are linear."""

EXPECT_FAILURES = {
    'test_parity_with_reference[default-MLP]': {'cause': 'no activation'},
    'test_parity_with_reference[relu-GLU]': {'cause': 'no activation'},
    'test_gradients[MLP]': {'waits_on': 'test_parity_with_reference[default-MLP]'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return self.drop(self.Wo(self.Wi(x)))\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return self.drop(self.Wo(self.Wg(x) * self.Wv(x)))\n'),
]
