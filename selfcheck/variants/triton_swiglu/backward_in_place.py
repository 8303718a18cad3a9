"""Wrong: the backward writes the gradients into the caller's gate and value, as Liger-Kernel's swiglu backward does."""

EXPECT_FAILURES = {
    'test_inputs_unmodified[backward-contiguous]': {'cause': 'inputs changed'},
    'test_gradcheck_float64': {'cause': 'backward: inputs overwritten'},
}

EDITS = [
    ("    grad_gate = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)\n"
     "    grad_value = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)\n",
     "    grad_gate = gate if gate.is_contiguous() else torch.empty_like(gate)\n"
     "    grad_value = value if value.is_contiguous() else torch.empty_like(value)\n"),
]
