"""Correct: the backward multiplies in the inputs' 16-bit dtype where eager does, grad_out * silu(gate) and grad_out * value (Unsloth's backward)."""

EXPECT_FAILURES = {}

EDITS = [
    ("    grad_gate = grad_out * value * sig * (1.0 + gate * (1.0 - sig))\n"
     "    grad_value = grad_out * gate * sig\n",
     "    grad_out_16 = tl.load(grad_out_ptr + row * grad_out_row_stride + cols, mask=in_row)\n"
     "    value_16 = tl.load(value_ptr + row * value_row_stride + cols, mask=in_row)\n"
     "    grad_value = grad_out_16 * (gate * sig).to(grad_out_16.dtype)\n"
     "    grad_silu = grad_out_16 * value_16\n"
     "    grad_gate = grad_silu.to(COMPUTE_DTYPE) * sig * (1.0 + gate * (1.0 - sig))\n"),
]
