"""Wrong: a hand-written dropout mask made with .float() turns bfloat16 outputs into float32 in training."""

EXPECT_FAILURES = {
    'test_dtype_kept[bfloat16-MLP]': {'cause': 'dropout mask dtype'},
    'test_dtype_kept[bfloat16-GLU]': {'cause': 'dropout mask dtype'},
}

EDITS = [
    ('ActivationFactory = Callable[[], nn.Module]\n',
     'ActivationFactory = Callable[[], nn.Module]\n'
     '\n'
     '\n'
     'def _drop(y, p, training):  # dropout written by hand\n'
     '    if not training or p == 0:\n'
     '        return y\n'
     '    keep = (torch.rand(y.shape, device=y.device) >= p).float()\n'
     '    return y * keep / (1 - p)\n'),
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return _drop(self.Wo(self.act(self.Wi(x))), self.drop.p, self.training)\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return _drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)), self.drop.p, self.training)\n'),
]
