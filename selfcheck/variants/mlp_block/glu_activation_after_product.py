"""Wrong: GLU applies the activation to the product Wg(x) * Wv(x) instead of to the gate alone."""

EXPECT_FAILURES = {
    'test_parity_with_reference[default-GLU]': {'cause': 'activation on the product'},
    'test_parity_with_reference[relu-GLU]': {'cause': 'activation on the product'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return self.drop(self.Wo(self.act(self.Wg(x) * self.Wv(x))))\n'),
]
