"""Wrong: GLU applies the activation to both the gate and the value path."""

EXPECT_FAILURES = {
    'test_parity_with_reference[default-GLU]': {'cause': 'activation on both paths'},
    'test_parity_with_reference[silu-GLU]': {'cause': 'activation on both paths'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return self.drop(self.Wo(self.act(self.Wg(x)) * self.act(self.Wv(x))))\n'),
]
