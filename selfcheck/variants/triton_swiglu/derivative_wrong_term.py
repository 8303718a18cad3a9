"""Wrong: the backward's derivative of sigmoid uses sigmoid(gate) where 1 - sigmoid(gate) belongs."""

EXPECT_FAILURES = {
    "test_backward_float32[2d]": "1 - sigmoid(gate) belongs",
    "test_autograd_gradients[float32]": "fix those first",
    "test_gradcheck_float64": "gradcheck",
}

EDITS = [
    ("    grad_gate = grad_out * value * sig * (1.0 + gate * (1.0 - sig))\n",
     "    grad_gate = grad_out * value * sig * (1.0 + gate * sig)\n"),
]
