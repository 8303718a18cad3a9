"""Wrong: forward unpacks `b, s, h = x.shape`, so only (batch, seq, hidden) inputs work."""

EXPECT_FAILURES = {
    'test_output_shape[2d-MLP]': {'cause': 'ValueError in MLP.forward', 'says': "don't unpack x.shape into a fixed count"},
    'test_output_shape[4d-GLU]': {'cause': 'ValueError in GLU.forward', 'says': 'any number of leading dimensions'},
    'test_parity_with_reference[default-MLP]': {'cause': 'ValueError in MLP.forward', 'says': 'leading dimensions'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        b, s, h = x.shape\n'
     '        y = self.Wo(self.act(self.Wi(x.reshape(b * s, h))))\n'
     '        return self.drop(y).reshape(b, s, h)\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        b, s, h = x.shape\n'
     '        flat = x.reshape(b * s, h)\n'
     '        y = self.Wo(self.act(self.Wg(flat)) * self.Wv(flat))\n'
     '        return self.drop(y).reshape(b, s, h)\n'),
]
