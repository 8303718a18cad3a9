"""Wrong: the backward treats sigmoid(gate) as a constant, dropping the product rule's second term."""

EXPECT_FAILURES = {
    "test_backward_float32[2d]": "product rule",
    "test_backward_16bit[float16]": "product rule",
    "test_fused_gradients": "gradient",
}

EDITS = [
    ("    grad_gate = grad_out * value * sig * (1.0 + gate * (1.0 - sig))\n",
     "    grad_gate = grad_out * value * sig\n"),
]
