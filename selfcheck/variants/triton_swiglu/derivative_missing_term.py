"""Wrong: the backward treats sigmoid(gate) as a constant, dropping the product rule's second term."""

EXPECT_FAILURES = {
    'test_backward_float32[2d]': {'cause': "backward: grad_gate: the product rule's second term missing"},
    'test_backward_16bit[float16]': {'cause': "backward: grad_gate: the product rule's second term missing"},
}

EDITS = [
    ("    grad_gate = grad_out * value * sig * (1.0 + gate * (1.0 - sig))\n",
     "    grad_gate = grad_out * value * sig\n"),
]
