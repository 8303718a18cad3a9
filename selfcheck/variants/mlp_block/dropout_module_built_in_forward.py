"""Wrong: a fresh nn.Dropout is built inside forward; it is always in training mode, even in eval."""

EXPECT_FAILURES = {
    'test_dropout_off_in_eval_mode[MLP]': {'cause': 'dropout in eval mode', 'says': 'an nn.Dropout built inside forward, keeps dropping'},
    'test_dropout_off_in_eval_mode[GLU]': {'cause': 'dropout in eval mode'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return nn.Dropout(self.drop.p)(self.Wo(self.act(self.Wi(x))))\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return nn.Dropout(self.drop.p)(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n'),
]
