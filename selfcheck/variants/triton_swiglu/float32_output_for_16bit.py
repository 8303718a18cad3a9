"""Wrong: swiglu_forward and swiglu_backward allocate their results in float32 whatever the inputs' dtype."""

# A launch-code mistake: the kernels are right (the kernel tests pass), the functions return float32.
EXPECT_FAILURES = {
    'test_kernels_launched[forward-chunk-bfloat16]': {'cause': 'forward: output dtype'},
    'test_kernels_launched[backward-chunk-bfloat16]': {'cause': 'backward: output dtype'},
}

EDITS = [
    ("dtype=gate.dtype, device=gate.device)", "dtype=torch.float32, device=gate.device)", 3),
]
