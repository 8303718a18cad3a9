"""Wrong: the block adds the residual in place with x += ..., changing the caller's tensor."""

EXPECT_FAILURES = {
    'test_input_unmodified[MLP]': {'cause': 'input changed in place'},
    'test_parity_with_reference[relu-GLU]': {'cause': 'residual inside'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        x += self.drop(self.Wo(self.act(self.Wi(x))))\n'
     '        return x\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        x += self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n'
     '        return x\n'),
]
