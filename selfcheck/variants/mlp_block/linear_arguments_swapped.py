"""Wrong: nn.Linear(out, in) argument order, as if it took the weight's (out, in) shape."""

EXPECT_FAILURES = {
    "test_parameter_shapes[MLP]": "the two sizes are swapped",
    "test_parameter_shapes[GLU]": "nn.Linear(hidden_dim, intermediate_dim)",
}

EDITS = [
    ('        self.Wi = nn.Linear(hidden_dim, intermediate_dim)\n',
     '        self.Wi = nn.Linear(intermediate_dim, hidden_dim)\n'),
    ('        self.Wo = nn.Linear(intermediate_dim, hidden_dim)\n',
     '        self.Wo = nn.Linear(hidden_dim, intermediate_dim)\n', 2),
    ('        self.Wv = nn.Linear(hidden_dim, intermediate_dim)\n'
     '        self.Wg = nn.Linear(hidden_dim, intermediate_dim)\n',
     '        self.Wv = nn.Linear(intermediate_dim, hidden_dim)\n'
     '        self.Wg = nn.Linear(intermediate_dim, hidden_dim)\n'),
]
