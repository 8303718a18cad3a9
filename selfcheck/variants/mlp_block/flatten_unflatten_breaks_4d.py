"""Wrong: flattens to 2-D, then reshapes back to (x.size(0), -1, hidden), which is wrong unless x is 3-D."""

EXPECT_FAILURES = {
    'test_output_shape[4d-MLP]': {'cause': 'leading dimensions'},
    'test_output_shape[2d-GLU]': {'cause': 'leading dimensions'},
    'test_parity_with_reference[default-GLU]': {'cause': 'leading dimensions'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        flat = x.reshape(-1, x.shape[-1])\n'
     '        y = self.drop(self.Wo(self.act(self.Wi(flat))))\n'
     '        return y.reshape(x.size(0), -1, x.shape[-1])\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        flat = x.reshape(-1, x.shape[-1])\n'
     '        y = self.drop(self.Wo(self.act(self.Wg(flat)) * self.Wv(flat)))\n'
     '        return y.reshape(x.size(0), -1, x.shape[-1])\n'),
]
