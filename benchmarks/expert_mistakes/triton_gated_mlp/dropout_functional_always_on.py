"""Wrong: the block keeps p as a float and calls F.dropout(y, p), which defaults to training=True, so dropout also runs in eval mode."""

EDITS = [
    ('        self.dropout = nn.Dropout(dropout)\n',
     '        self.dropout = dropout\n'),
    ('        return self.dropout(self.Wo(hidden))\n',
     '        return F.dropout(self.Wo(hidden), self.dropout)\n'),
]
