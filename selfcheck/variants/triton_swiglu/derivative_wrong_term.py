"""Wrong: the backward's derivative of sigmoid uses sigmoid(gate) where 1 - sigmoid(gate) belongs."""

POLICY_TODOS = "2"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_backward_float32[2d]': {'cause': 'backward: grad_gate: sigmoid where 1 - sigmoid belongs'},
    'test_gradcheck_float64': {'waits_on': 'test_backward_float32'},
}

EDITS = [
    ("    grad_gate = grad_out * value * sig * (1.0 + gate * (1.0 - sig))\n",
     "    grad_gate = grad_out * value * sig * (1.0 + gate * sig)\n"),
]
