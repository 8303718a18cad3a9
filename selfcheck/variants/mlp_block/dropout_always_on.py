"""Wrong: F.dropout(..., training=True) keeps dropping outputs in eval mode."""

EXPECT_FAILURES = {
    'test_dropout_off_in_eval_mode[MLP]': {'cause': 'dropout in eval mode'},
    'test_dropout_off_in_eval_mode[GLU]': {'cause': 'dropout in eval mode'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return nn.functional.dropout(self.Wo(self.act(self.Wi(x))), p=self.drop.p, training=True)\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return nn.functional.dropout(self.Wo(self.act(self.Wg(x)) * self.Wv(x)), p=self.drop.p, training=True)\n'),
]
