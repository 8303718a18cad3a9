"""Wrong: the forward launches its kernel, then returns a result computed by PyTorch (a debugging leftover)."""

EXPECT_FAILURES = {
    "test_kernels_launched[forward-contiguous]": "no Triton kernel of",
}

EDITS = [
    ("    return out\n\n\ndef swiglu_backward",
     "    return torch.nn.functional.silu(gate) * value\n\n\ndef swiglu_backward"),
]
