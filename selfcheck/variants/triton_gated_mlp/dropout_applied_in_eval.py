"""Wrong: FusedGatedMLP keeps the rate and calls F.dropout(y, p), which drops in eval mode too (training= defaults to True)."""

EXPECT_FAILURES = {
    'test_block_dropout': {'says': 'in eval mode with dropout=0.5'},
}

EDITS = [
    ("        self.dropout = nn.Dropout(dropout)\n", "        self.dropout = dropout\n"),
    ("        return self.dropout(self.Wo(hidden))\n", "        return F.dropout(self.Wo(hidden), self.dropout)\n"),
]
