"""Wrong: the MLP forward counts the matrix products alone, as FlopCounterMode does."""

EDITS = [
    ('    return matmuls + bias_adds + activation\n',
     '    return matmuls\n'),
]

POLICY_TODOS = "3"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_forward_flops[MLP]': {'cause': 'matrix products only'},
}
