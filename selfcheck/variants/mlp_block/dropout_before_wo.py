"""Wrong: dropout is applied to the hidden activations, before Wo, instead of to the output."""

POLICY_TODOS = "2, 4"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_dropout_share_of_zeros[MLP]': {'cause': 'dropout not last'},
    'test_dropout_share_of_zeros[GLU]': {'cause': 'dropout not last'},
    'test_dropout_kept_outputs_scaled[MLP]': {'waits_on': 'test_dropout_share_of_zeros[MLP]'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return self.Wo(self.drop(self.act(self.Wi(x))))\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return self.Wo(self.drop(self.act(self.Wg(x)) * self.Wv(x)))\n'),
]
