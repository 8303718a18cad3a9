"""Wrong: dropout is applied to the input x on the way in instead of to the block's output."""

EXPECT_FAILURES = {
    'test_dropout_share_of_zeros[MLP]': {'cause': 'dropout not last'},
    'test_dropout_share_of_zeros[GLU]': {'cause': 'dropout not last'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return self.Wo(self.act(self.Wi(self.drop(x))))\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        x = self.drop(x)\n'
     '        return self.Wo(self.act(self.Wg(x)) * self.Wv(x))\n'),
]
