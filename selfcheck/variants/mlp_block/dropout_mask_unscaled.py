"""Wrong: a hand-written dropout mask zeroes outputs but does not scale the kept ones by 1/(1-p)."""

EXPECT_FAILURES = {
    'test_dropout_kept_outputs_scaled[MLP]': {'cause': 'dropout not scaled'},
    'test_dropout_kept_outputs_scaled[GLU]': {'cause': 'dropout not scaled'},
}

EDITS = [
    ('ActivationFactory = Callable[[], nn.Module]\n',
     'ActivationFactory = Callable[[], nn.Module]\n'
     '\n'
     '\n'
     'def _drop(y, p, training):  # dropout written by hand\n'
     '    if not training or p == 0:\n'
     '        return y\n'
     '    keep = (torch.rand_like(y) >= p).to(y.dtype)\n'
     '    return y * keep\n'),
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return _drop(self.Wo(self.act(self.Wi(x))), self.drop.p, self.training)\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return _drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)), self.drop.p, self.training)\n'),
]
