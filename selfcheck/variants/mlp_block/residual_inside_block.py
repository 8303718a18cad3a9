"""Wrong: the block adds the residual itself and returns x + dropout(Wo(...))."""

EXPECT_FAILURES = {
    "test_parity_with_reference[default-MLP]": "the residual connection belongs outside the block",
    "test_parity_with_reference[silu-GLU]": "the residual connection belongs outside the block",
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return x + self.drop(self.Wo(self.act(self.Wi(x))))\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return x + self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n'),
]
