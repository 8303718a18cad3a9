"""Wrong: GLU applies the activation to both the gate and the value path."""

EXPECT_FAILURES = {
    "test_parity_with_reference[default-GLU]": "the activation is on both paths",
    "test_parity_with_reference[silu-GLU]": "only the gate Wg gets it",
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return self.drop(self.Wo(self.act(self.Wg(x)) * self.act(self.Wv(x))))\n'),
]
