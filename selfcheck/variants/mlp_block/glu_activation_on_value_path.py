"""Wrong: GLU puts the activation on the value path."""

POLICY_TODOS = "4"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_parity_with_reference[default-GLU]': {'cause': 'activation on the value path'},
    'test_parity_with_reference[relu-GLU]': {'cause': 'activation on the value path'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return self.drop(self.Wo(self.act(self.Wv(x)) * self.Wg(x)))\n'),
]
