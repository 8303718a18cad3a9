"""Wrong: GLU gates with a hard-coded sigmoid (the 2016 GLU paper) instead of activation_fn()."""

EXPECT_FAILURES = {
    'test_parity_with_reference[default-GLU]': {'cause': 'sigmoid gate'},
    'test_parity_with_reference[silu-GLU]': {'cause': 'sigmoid gate'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return self.drop(self.Wo(torch.sigmoid(self.Wg(x)) * self.Wv(x)))\n'),
]
