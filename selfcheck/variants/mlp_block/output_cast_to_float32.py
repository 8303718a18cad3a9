"""Wrong: forward returns out.float(), so float64 and bfloat16 blocks give float32 outputs."""

POLICY_TODOS = "2, 4"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_dtype_kept[float64-MLP]': {'cause': 'output dtype'},
    'test_dtype_kept[bfloat16-GLU]': {'cause': 'output dtype'},
    'test_parity_with_reference[default-MLP]': {'cause': 'output dtype'},
}

EDITS = [
    ('        return self.drop(self.Wo(self.act(self.Wi(x))))\n',
     '        return self.drop(self.Wo(self.act(self.Wi(x)))).float()\n'),
    ('        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x)))\n',
     '        return self.drop(self.Wo(self.act(self.Wg(x)) * self.Wv(x))).float()\n'),
]
