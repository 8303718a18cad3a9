"""Wrong: the epilogue always applies SiLU (gate * sigmoid(gate)) and ignores ACTIVATION."""

EDITS = [
    ('    out = _activation(gate, ACTIVATION) * value\n',
     '    out = gate * tl.sigmoid(gate) * value\n'),
]
