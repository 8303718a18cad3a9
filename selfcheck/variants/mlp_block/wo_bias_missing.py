"""Wrong: Wo is built with bias=False; Wi (and Wg, Wv) keep theirs."""

EXPECT_FAILURES = {
    "test_layer_names[MLP]": "the linear layers need biases",
    "test_parameter_count[GLU]": "plus a bias each",
    "test_parity_with_reference[default-MLP]": "has no Wo.bias",
    "test_parity_with_reference[relu-GLU]": "GLU.__init__ (TODO 3",
    "test_gradients[GLU]": "no Wo.bias",
}

EDITS = [
    ('nn.Linear(intermediate_dim, hidden_dim)',
     'nn.Linear(intermediate_dim, hidden_dim, bias=False)', 2),
]
