"""Wrong: layers named fc1/fc2 and w1/w2/w3 (as in other codebases) instead of Wi/Wo and Wv/Wg/Wo."""

POLICY_TODOS = "1, 3"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_layer_names[MLP]': {'cause': 'layer names'},
    'test_layer_names[GLU]': {'cause': 'layer names'},
}

EDITS = [
    ('        self.Wi = nn.Linear(hidden_dim, intermediate_dim)\n'
     '        self.act = activation_fn()\n'
     '        self.Wo = nn.Linear(intermediate_dim, hidden_dim)\n',
     '        self.fc1 = nn.Linear(hidden_dim, intermediate_dim)\n'
     '        self.act = activation_fn()\n'
     '        self.fc2 = nn.Linear(intermediate_dim, hidden_dim)\n'),
    ('        self.Wv = nn.Linear(hidden_dim, intermediate_dim)\n'
     '        self.Wg = nn.Linear(hidden_dim, intermediate_dim)\n'
     '        self.act = activation_fn()\n'
     '        self.Wo = nn.Linear(intermediate_dim, hidden_dim)\n',
     '        self.w1 = nn.Linear(hidden_dim, intermediate_dim)  # gate\n'
     '        self.w3 = nn.Linear(hidden_dim, intermediate_dim)  # value\n'
     '        self.act = activation_fn()\n'
     '        self.w2 = nn.Linear(intermediate_dim, hidden_dim)  # down\n'),
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return self.drop(self.fc2(self.act(self.fc1(x))))\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return self.drop(self.w2(self.act(self.w1(x)) * self.w3(x)))\n'),
]
