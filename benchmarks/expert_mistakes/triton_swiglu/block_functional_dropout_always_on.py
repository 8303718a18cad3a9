"""Wrong: in FusedSwiGLU I stored p and used nn.functional.dropout(..., p) without training=self.training, so dropout also runs in eval mode."""

EDITS = [
    ('        self.drop = nn.Dropout(dropout)\n',
     '        self.p = dropout\n'),
    ('        return self.drop(self.Wo(swiglu(self.Wg(x), self.Wv(x))))\n',
     '        return nn.functional.dropout(self.Wo(swiglu(self.Wg(x), self.Wv(x))), p=self.p)\n'),
]
