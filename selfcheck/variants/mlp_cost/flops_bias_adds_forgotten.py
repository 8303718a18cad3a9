"""Wrong: the MLP forward leaves out the bias adds."""

EDITS = [
    ('    bias_adds = intermediate_dim + hidden_dim if bias else 0',
     '    bias_adds = 0'),
]

POLICY_TODOS = "3"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_forward_flops[MLP]': {'cause': 'bias adds missing'},
}
