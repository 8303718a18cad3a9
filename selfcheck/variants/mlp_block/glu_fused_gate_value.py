"""Wrong: GLU fuses Wg and Wv into one nn.Linear(hidden, 2*intermediate), so Wv/Wg keys are missing."""

EXPECT_FAILURES = {
    'test_layer_names[GLU]': {'cause': 'layer names'},
}

EDITS = [
    ('        self.Wv = nn.Linear(hidden_dim, intermediate_dim)\n'
     '        self.Wg = nn.Linear(hidden_dim, intermediate_dim)\n',
     '        self.Wgv = nn.Linear(hidden_dim, 2 * intermediate_dim)  # one matmul for both paths\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        gate, value = self.Wgv(x).chunk(2, dim=-1)\n'
     '        return self.drop(self.Wo(self.act(gate) * value))\n'),
]
