"""Wrong: the kernels do nothing; swiglu_forward and swiglu_backward launch them and return PyTorch's results."""

EXPECT_FAILURES = {
    'test_forward_float32[2d]': {'cause': 'forward: elements never written'},
    'test_backward_float32[2d]': {'cause': 'backward: elements never written'},
    'test_kernels_launched[forward-contiguous]': {'cause': 'forward: result not from the kernel'},
    'test_kernels_launched[backward-chunk-bfloat16]': {'cause': 'backward: result not from the kernel'},
}

EDITS = [
    ("    out = gate * tl.sigmoid(gate) * value  # silu(gate) * value\n"
     "    # The one rounding: to out's dtype, on the way out.\n"
     "    tl.store(out_ptr + row * out_row_stride + cols, out.to(out_ptr.dtype.element_ty), mask=in_row)\n",
     "    pass\n"),
    ("    tl.store(grad_gate_ptr + row * grad_gate_row_stride + cols,\n"
     "             grad_gate.to(grad_gate_ptr.dtype.element_ty), mask=in_row)\n"
     "    tl.store(grad_value_ptr + row * grad_value_row_stride + cols,\n"
     "             grad_value.to(grad_value_ptr.dtype.element_ty), mask=in_row)\n",
     "    pass\n"),
    ("    return out\n\n\ndef swiglu_backward",
     "    out.copy_(torch.nn.functional.silu(gate) * value)\n    return out\n\n\ndef swiglu_backward"),
    ("    return grad_gate, grad_value\n\n\nclass SwiGLUFunction",
     "    sig = torch.sigmoid(gate)\n"
     "    grad_gate.copy_(grad_out * value * sig * (1 + gate * (1 - sig)))\n"
     "    grad_value.copy_(grad_out * gate * sig)\n"
     "    return grad_gate, grad_value\n\n\nclass SwiGLUFunction"),
]
