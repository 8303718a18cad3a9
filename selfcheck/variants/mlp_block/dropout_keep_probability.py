"""Wrong: nn.Dropout(1 - dropout) treats the rate as the share kept; p is the share dropped."""

POLICY_TODOS = "1, 3"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_dropout_zero_changes_nothing_in_training[MLP]': {'cause': 'dropout rate is the share kept'},
    'test_dropout_share_of_zeros[GLU]': {'cause': 'dropout rate is the share kept'},
    'test_dropout_kept_outputs_scaled[MLP]': {'cause': 'dropout rate is the share kept'},
}

EDITS = [
    ('        self.drop = nn.Dropout(dropout)\n',
     '        self.drop = nn.Dropout(1 - dropout)\n', 2),
]
