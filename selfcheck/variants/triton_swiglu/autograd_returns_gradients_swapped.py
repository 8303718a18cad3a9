"""Wrong: SwiGLUFunction.backward returns (grad_value, grad_gate), not in the order of forward's inputs."""

POLICY_TODOS = "4"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_autograd_gradients[float32]': {'cause': 'gradients returned swapped'},
    'test_gradcheck_float64': {'waits_on': 'test_autograd_gradients[float32]'},
}

EDITS = [
    ("        return swiglu_backward(grad_out, gate, value)\n",
     "        grad_gate, grad_value = swiglu_backward(grad_out, gate, value)\n"
     "        return grad_value, grad_gate\n"),
]
