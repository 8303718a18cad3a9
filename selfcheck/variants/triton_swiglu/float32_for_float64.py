"""Wrong: the kernels convert to tl.float32 whatever COMPUTE_DTYPE says, so float64 tensors lose precision (as kernels that hard-code float32 do)."""

# Only the float64 tests may fail, each naming float64 precision (ONLY_NAMED in selfcheck/test_triton_variants.py).
EXPECT_FAILURES = {
    'test_forward_float64': {'cause': 'kernels compute float64 in float32'},
    'test_backward_float64': {'cause': 'kernels compute float64 in float32'},
    'test_gradcheck_float64': {'cause': 'kernels compute float64 in float32'},
}

EDITS = [
    ("mask=in_row).to(COMPUTE_DTYPE)", "mask=in_row).to(tl.float32)", 5),
]
