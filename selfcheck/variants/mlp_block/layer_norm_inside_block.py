"""Wrong: the block normalises its input with its own nn.LayerNorm, which belongs to the transformer layer."""

POLICY_TODOS = "1-4"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_layer_names[MLP]': {'cause': 'extra parameters'},
    'test_parameter_count[GLU]': {'cause': 'extra parameters'},
}

EDITS = [
    ('        _check_arguments(hidden_dim, intermediate_dim, activation_fn, dropout)\n',
     '        _check_arguments(hidden_dim, intermediate_dim, activation_fn, dropout)\n'
     '        self.norm = nn.LayerNorm(hidden_dim)\n', 2),
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return self.drop(self.Wo(self.act(self.Wi(self.norm(x)))))\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        h = self.norm(x)\n'
     '        return self.drop(self.Wo(self.act(self.Wg(h)) * self.Wv(h)))\n'),
]
