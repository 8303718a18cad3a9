"""Wrong: the combined version tests the bias with `if not bias` instead of `bias is None`, which raises for a real bias tensor."""

EDITS = [
    ('    gate_bias, value_bias = (None, None) if bias is None else (bias[:n], bias[n:])\n',
     '    gate_bias, value_bias = (None, None) if not bias else (bias[:n], bias[n:])\n'),
]
