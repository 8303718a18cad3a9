"""Wrong: the forward launches its kernel, then returns a result computed by PyTorch (a debugging leftover)."""

EXPECT_FAILURES = {
    'test_kernels_launched[forward-contiguous]': {'cause': 'forward: result not from the kernel'},
}

EDITS = [
    ("    return out\n\n\ndef swiglu_backward",
     "    return torch.nn.functional.silu(gate) * value\n\n\ndef swiglu_backward"),
]
