"""Wrong: GLU as timm's GluMlp packs it: one fc1 of 2*intermediate outputs, value half first, gate half last; only the names differ from the interface."""

EXPECT_FAILURES = {
    'test_layer_names[GLU]': {'cause': 'layer names'},
}

EDITS = [
    ('        self.Wv = nn.Linear(hidden_dim, intermediate_dim)\n'
     '        self.Wg = nn.Linear(hidden_dim, intermediate_dim)\n',
     '        self.fc1 = nn.Linear(hidden_dim, 2 * intermediate_dim)  # timm GluMlp, gate_last=True\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        x1, x2 = self.fc1(x).chunk(2, dim=-1)\n'
     '        return self.drop(self.Wo(x1 * self.act(x2)))\n'),
]
