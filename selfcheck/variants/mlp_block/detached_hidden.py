"""Wrong: .detach() on the hidden activations (MLP) and on the gate (GLU) cuts the gradient to Wi/Wg."""

EXPECT_FAILURES = {
    'test_gradients[MLP]': {'cause': 'graph cut'},
    'test_gradients[GLU]': {'cause': 'graph cut'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return self.drop(self.Wo(self.act(self.Wi(x)).detach()))\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return self.drop(self.Wo(self.act(self.Wg(x)).detach() * self.Wv(x)))\n'),
]
