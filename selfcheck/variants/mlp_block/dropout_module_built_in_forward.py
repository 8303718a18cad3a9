"""Wrong: a fresh nn.Dropout is built inside forward; it is always in training mode, even in eval."""

EXPECT_FAILURES = {
    "test_dropout_off_in_eval_mode[MLP]": "an nn.Dropout built inside forward, keeps dropping",
    "test_dropout_off_in_eval_mode[GLU]": "dropout must do nothing in eval mode",
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return nn.Dropout(self.drop.p)(self.Wo(self.act(self.Wi(x))))\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return nn.Dropout(self.drop.p)(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n'),
]
