"""Wrong: nn.Dropout() is created without the `dropout` argument, so it always drops half."""

EXPECT_FAILURES = {
    'test_dropout_zero_changes_nothing_in_training[GLU]': {'cause': 'dropout rate ignored'},
    'test_dropout_share_of_zeros[MLP]': {'cause': 'dropout rate ignored'},
    'test_dropout_kept_outputs_scaled[GLU]': {'cause': 'dropout rate ignored'},
}

EDITS = [
    ('        self.drop = nn.Dropout(dropout)\n',
     '        self.drop = nn.Dropout()\n', 2),
]
