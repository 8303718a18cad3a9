"""Wrong: the forward launches its kernel, then returns a result computed by PyTorch (a debugging leftover)."""

EXPECT_FAILURES = {
    "test_kernels_launched[forward-contiguous]": "does not get its result from _swiglu_forward_kernel",
}

EDITS = [
    ("    return out\n\n\ndef swiglu_backward",
     "    return torch.nn.functional.silu(gate) * value\n\n\ndef swiglu_backward"),
]
