"""Wrong: the activation module is created but never applied, so both blocks are linear."""

EXPECT_FAILURES = {
    "test_parity_with_reference[default-MLP]": "no activation: apply act() between Wi and Wo",
    "test_parity_with_reference[relu-GLU]": "the gate path needs act(Wg(x))",
    "test_gradients[MLP]": "the forward output already differs",
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return self.drop(self.Wo(self.Wi(x)))\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return self.drop(self.Wo(self.Wg(x) * self.Wv(x)))\n'),
]
