"""Wrong: the kernels compute in the loaded dtype; .to(COMPUTE_DTYPE) after tl.load is left out."""

EXPECT_FAILURES = {
    'test_forward_16bit[float16]': {'cause': 'CompilationError in swiglu_forward', 'says': 'convert right after tl.load'},
    'test_forward_16bit[bfloat16]': {'cause': 'CompilationError in swiglu_forward', 'says': 'triton_swiglu.py:'},
}

EDITS = [
    (", mask=in_row).to(COMPUTE_DTYPE)", ", mask=in_row)", 5),
]
