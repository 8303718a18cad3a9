"""Wrong: gated_projection computes the answer with PyTorch matmuls and never launches the kernel."""

POLICY_TODOS = "2"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_kernel_does_the_work': {'cause': 'projection not from the kernel'},
    'test_forward_3d_input[contiguous]': {'waits_on': 'test_kernel_does_the_work'},
    'test_forward_3d_input[sequence_first]': {'waits_on': 'test_kernel_does_the_work'},
    'test_combined_weight': {'waits_on': 'test_kernel_does_the_work'},
    'test_combined_weight_not_copied': {'waits_on': 'test_kernel_does_the_work'},
    'test_no_tokens': {'waits_on': 'test_kernel_does_the_work'},
}

EDITS = [
    ("    rows = x.reshape(-1, x.shape[-1])  # a view where it can be one; its strides go to the kernel as they are\n",
     "    return _torch_activation(activation)(F.linear(x, gate_weight, gate_bias)) * F.linear(x, value_weight, value_bias)\n"
     "    rows = x.reshape(-1, x.shape[-1])  # a view where it can be one; its strides go to the kernel as they are\n"),
]
