"""Wrong: the bias vectors are broadcast with [:, None], so each tile row gets a bias instead of each column."""

EDITS = [
    ('        gate += tl.load(gate_bias_ptr + cols, mask=cols < N, other=0.0).to(COMPUTE_DTYPE)[None, :]\n        value += tl.load(value_bias_ptr + cols, mask=cols < N, other=0.0).to(COMPUTE_DTYPE)[None, :]\n',
     '        gate += tl.load(gate_bias_ptr + cols, mask=cols < N, other=0.0).to(COMPUTE_DTYPE)[:, None]\n        value += tl.load(value_bias_ptr + cols, mask=cols < N, other=0.0).to(COMPUTE_DTYPE)[:, None]\n'),
]
