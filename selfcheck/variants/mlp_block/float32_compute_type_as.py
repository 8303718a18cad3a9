"""Wrong: the activation runs in float32 and is cast back with .type_as(x) (TorchScale, DeepSeek)."""

# TorchScale's FFN casts the MLP's activation input; DeepSeek's gated MLP casts both GLU branches.
# In a float64 block the result is then right to float32 precision only.

POLICY_TODOS = "2, 4"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_parity_with_reference[default-MLP]': {'cause': 'computes in float32'},
    'test_parity_with_reference[relu-GLU]': {'cause': 'computes in float32'},
    'test_gradients[MLP]': {'cause': 'computes in float32'},
    'test_gradients[GLU]': {'cause': 'computes in float32'},
}

EDITS = [
    ('return self.drop(self.Wo(self.act(self.Wi(x))))',
     'return self.drop(self.Wo(self.act(self.Wi(x).float()).type_as(x)))'),
    ('return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))',
     'return self.drop(self.Wo((self.act(self.Wg(x).float()) * self.Wv(x).float()).type_as(x)))'),
]
