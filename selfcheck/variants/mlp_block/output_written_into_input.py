"""Wrong: forward writes its result into the input's storage with x.copy_(...) to save memory."""

EXPECT_FAILURES = {
    'test_input_unmodified[MLP]': {'cause': 'input changed in place'},
    'test_input_unmodified[GLU]': {'cause': 'input changed in place', 'says': 'x.copy_(...)'},
    'test_gradients[MLP]': {'cause': 'RuntimeError in MLP.forward', 'says': 'compute new tensors instead'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return x.copy_(self.drop(self.Wo(self.act(self.Wi(x)))))\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return x.copy_(self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x))))\n'),
]
