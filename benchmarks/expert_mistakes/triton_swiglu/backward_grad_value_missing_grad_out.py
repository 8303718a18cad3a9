"""Wrong: in the backward kernel grad_value is just silu(gate): I forgot to multiply it by grad_out (chain rule)."""

EDITS = [
    ('    grad_value = grad_out * gate * sig\n',
     '    grad_value = gate * sig\n'),
]
