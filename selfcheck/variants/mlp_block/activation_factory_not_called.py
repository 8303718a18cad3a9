"""Wrong: stores activation_fn itself (the class) and calls it on the tensor, building a module."""

EXPECT_FAILURES = {
    'test_output_shape[3d-MLP]': {'cause': 'TypeError in MLP.forward', 'says': 'activation_fn is a factory, not the activation'},
    'test_parity_with_reference[relu-GLU]': {'cause': 'TypeError in GLU.forward', 'says': 'self.act = activation_fn()'},
    'test_parity_with_reference[gelu_tanh_partial-MLP]': {'cause': 'TypeError in MLP.forward', 'says': 'activation_fn is a factory'},
}

EDITS = [
    ('        self.act = activation_fn()\n',
     '        self.act = activation_fn\n', 2),
]
