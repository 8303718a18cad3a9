"""Wrong: the kernels take the gate in tl.float32 and the rest in COMPUTE_DTYPE (as kernels that write silu(a.to(tl.float32)) * b do), so float64 tensors get float32-accurate sigmoids."""

# Only the float64 tests may fail, each naming float32 precision (ONLY_NAMED in selfcheck/test_triton_variants.py).
EXPECT_FAILURES = {
    'test_forward_float64': {'cause': 'kernels compute float64 in float32'},
    'test_backward_float64': {'cause': 'kernels compute float64 in float32'},
    'test_gradcheck_float64': {'cause': 'kernels compute float64 in float32'},
}

EDITS = [
    ("    gate = tl.load(gate_ptr + row * gate_row_stride + cols, mask=in_row).to(COMPUTE_DTYPE)\n",
     "    gate = tl.load(gate_ptr + row * gate_row_stride + cols, mask=in_row).to(tl.float32)\n", 2),
]
