"""Wrong: stores activation_fn itself (the class) and calls it on the tensor, building a module."""

# Written before grading: the layers are right and the forward applies them, then hands a module (nn.GELU(h))
# where a tensor belongs, so every forward raises. The construction tests (names, shapes, count: 3 points a
# block) keep their points, since the forward gets past the layers (on a wider input it fails at the first
# layer instead); everything that needs an output is lost, told as one cause in __init__: the factory not called.
EXPERT_VERDICT = "Keeps the 3 construction points of each block, loses 22 of 25 in each: 44 of 50, one cause."

EXPECT_FAILURES = {
    'test_output_shape[3d-MLP]': {'cause': 'activation_fn not called', 'says': 'activation_fn is a factory'},
    'test_parity_with_reference[relu-GLU]': {'cause': 'activation_fn not called', 'says': 'self.act = activation_fn()'},
    'test_parity_with_reference[gelu_tanh_partial-MLP]': {'cause': 'activation_fn not called'},
    'test_gradients[GLU]': {'cause': 'activation_fn not called'},
    'test_dropout_share_of_zeros[MLP]': {'cause': 'activation_fn not called'},
}

EDITS = [
    ('        self.act = activation_fn()\n',
     '        self.act = activation_fn\n', 2),
]
