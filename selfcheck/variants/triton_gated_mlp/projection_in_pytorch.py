"""Wrong: gated_projection computes the answer with PyTorch matmuls and never launches the kernel."""

EXPECT_FAILURES = {
    "test_kernel_does_the_work": "launched none",
}

EDITS = [
    ("    rows = x.reshape(-1, x.shape[-1])  # a view where it can be one; its strides go to the kernel as they are\n",
     "    return _torch_activation(activation)(F.linear(x, gate_weight, gate_bias)) * F.linear(x, value_weight, value_bias)\n"
     "    rows = x.reshape(-1, x.shape[-1])  # a view where it can be one; its strides go to the kernel as they are\n"),
]
