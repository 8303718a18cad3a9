"""Wrong: MLP builds Wi as nn.Linear(hidden_dim, hidden_dim), so Wi's output does not fit Wo."""

EXPECT_FAILURES = {
    'test_parameter_shapes[MLP]': 'Wi maps hidden_dim -> intermediate_dim',
    'test_parameter_count[MLP]': {'cause': 'parameter count'},
}

EDITS = [
    ('        self.Wi = nn.Linear(hidden_dim, intermediate_dim)\n',
     '        self.Wi = nn.Linear(hidden_dim, hidden_dim)\n'),
]
