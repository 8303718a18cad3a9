"""Wrong: I wrote the sigmoid by hand in the forward kernel as 1 / (1 + exp(gate)), dropping the minus sign."""

EDITS = [
    ('    out = gate * tl.sigmoid(gate) * value  # silu(gate) * value\n',
     '    out = gate * (1.0 / (1.0 + tl.exp(gate))) * value  # silu(gate) * value\n'),
]
