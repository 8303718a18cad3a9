"""Wrong: the block adds the residual itself and returns x + dropout(Wo(...))."""

POLICY_TODOS = "2, 4"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_parity_with_reference[default-MLP]': {'cause': 'residual inside'},
    'test_parity_with_reference[silu-GLU]': {'cause': 'residual inside'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return x + self.drop(self.Wo(self.act(self.Wi(x))))\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return x + self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n'),
]
