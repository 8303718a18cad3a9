"""Wrong: gated_projection computes the answer with PyTorch matmuls and never launches the kernel."""

EXPECT_FAILURES = {
    "test_kernel_does_the_work": "does not get its result from _gated_projection_kernel",
    "test_forward_3d_input": "counts once gated_projection gets the projection",
    "test_combined_weight": "counts once gated_projection gets the projection",
    "test_combined_weight_not_copied": "counts once gated_projection gets the projection",
    "test_no_tokens": "counts once gated_projection gets the projection",
    "test_block_matches_glu[silu]": "counts once gated_projection gets its result from",
    "test_block_matches_glu[gelu]": "counts once gated_projection gets its result from",
    "test_block_gradients": "counts once gated_projection gets its result from",
    "test_block_dropout": "counts once gated_projection gets its result from",
}

EDITS = [
    ("    rows = x.reshape(-1, x.shape[-1])  # a view where it can be one; its strides go to the kernel as they are\n",
     "    return _torch_activation(activation)(F.linear(x, gate_weight, gate_bias)) * F.linear(x, value_weight, value_bias)\n"
     "    rows = x.reshape(-1, x.shape[-1])  # a view where it can be one; its strides go to the kernel as they are\n"),
]
