"""Wrong: GLU adds the gate and value paths, act(Wg(x)) + Wv(x), instead of multiplying them."""

POLICY_TODOS = "4"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_parity_with_reference[default-GLU]': 'check GLU.forward (TODO 4) against the formula in its docstring',
    'test_gradients[GLU]': {'waits_on': 'test_parity_with_reference[default-GLU]'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return self.drop(self.Wo(self.act(self.Wg(x)) + self.Wv(x)))\n'),
]
