"""Correct: Liger-Kernel's SwiGLU kernel bodies (a silu helper; silu rounded to the value's dtype before the product, as eager does), kept to the stub's parameters."""

# Adapted from liger_kernel/ops/swiglu.py (BSD-2-Clause): the computing lines as they are there; the
# row and block from the stub's flat grid instead of one program per row, COMPUTE_DTYPE where Liger
# writes tl.float32, and the gradients stored through their own pointers, not over gate and value.
EXPECT_FAILURES = {}

EDITS = [
    ("@triton.jit\ndef _swiglu_forward_kernel(",
     "@triton.jit\n"
     "def silu(x):\n"
     "    return x * tl.sigmoid(x)\n"
     "\n"
     "\n"
     "@triton.jit\n"
     "def _swiglu_forward_kernel("),
    ("    gate = tl.load(gate_ptr + row * gate_row_stride + cols, mask=in_row).to(COMPUTE_DTYPE)\n"
     "    value = tl.load(value_ptr + row * value_row_stride + cols, mask=in_row).to(COMPUTE_DTYPE)\n"
     "    out = gate * tl.sigmoid(gate) * value  # silu(gate) * value\n"
     "    # The one rounding: to out's dtype, on the way out.\n"
     "    tl.store(out_ptr + row * out_row_stride + cols, out.to(out_ptr.dtype.element_ty), mask=in_row)\n",
     "    # sigmoid requires type float32\n"
     "    a_row = tl.load(gate_ptr + row * gate_row_stride + cols, mask=in_row, other=0).to(COMPUTE_DTYPE)\n"
     "    b_row = tl.load(value_ptr + row * value_row_stride + cols, mask=in_row, other=0)\n"
     "    c_row = silu(a_row).cast(b_row.dtype) * b_row\n"
     "    tl.store(out_ptr + row * out_row_stride + cols, c_row, mask=in_row)\n"),
    ('    grad_out = tl.load(grad_out_ptr + row * grad_out_row_stride + cols, mask=in_row).to(COMPUTE_DTYPE)\n'
     '    gate = tl.load(gate_ptr + row * gate_row_stride + cols, mask=in_row).to(COMPUTE_DTYPE)\n'
     '    value = tl.load(value_ptr + row * value_row_stride + cols, mask=in_row).to(COMPUTE_DTYPE)\n'
     '\n'
     '    # The sigmoid is recomputed from gate rather than saved by the forward: a few flops here cost\n'
     '    # nothing next to writing and re-reading a whole extra tensor.\n'
     '    sig = tl.sigmoid(gate)\n'
     "    # y = silu(gate) * value with silu(g) = g * sigmoid(g). Product rule and sigmoid' = s * (1 - s):\n"
     "    #   silu'(g) = s + g * s * (1 - s) = s * (1 + g * (1 - s))\n"
     '    grad_gate = grad_out * value * sig * (1.0 + gate * (1.0 - sig))\n'
     '    grad_value = grad_out * gate * sig\n'
     '\n'
     '    tl.store(grad_gate_ptr + row * grad_gate_row_stride + cols,\n'
     '             grad_gate.to(grad_gate_ptr.dtype.element_ty), mask=in_row)\n'
     '    tl.store(grad_value_ptr + row * grad_value_row_stride + cols,\n'
     '             grad_value.to(grad_value_ptr.dtype.element_ty), mask=in_row)\n',
     "    dc_row = tl.load(grad_out_ptr + row * grad_out_row_stride + cols, mask=in_row, other=0)\n"
     "    # sigmoid requires type float32\n"
     "    a_row = tl.load(gate_ptr + row * gate_row_stride + cols, mask=in_row, other=0).to(COMPUTE_DTYPE)\n"
     "    b_row = tl.load(value_ptr + row * value_row_stride + cols, mask=in_row, other=0)\n"
     "\n"
     "    # recomputation to save memory\n"
     "    sig_a = tl.sigmoid(a_row)\n"
     "    silu_a = a_row * sig_a\n"
     "    db_row = dc_row * silu_a\n"
     "    da_row = dc_row * (silu_a * (1 - sig_a) + sig_a) * b_row\n"
     "    tl.store(grad_gate_ptr + row * grad_gate_row_stride + cols, da_row, mask=in_row)\n"
     "    tl.store(grad_value_ptr + row * grad_value_row_stride + cols, db_row, mask=in_row)\n"),
]
