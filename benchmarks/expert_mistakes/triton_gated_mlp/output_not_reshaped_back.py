"""Wrong: gated_projection returns the (M, N) rows without reshaping them back to (..., N)."""

EDITS = [
    ('    return out.reshape(*x.shape[:-1], gate_weight.shape[0])\n',
     '    return out\n'),
]
