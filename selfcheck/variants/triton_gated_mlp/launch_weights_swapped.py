"""Wrong: a right kernel, launched with the value's weight and bias where the gate's go (TODO 2): the kernel tests, which launch it with the given launch code, all pass."""

POLICY_TODOS = "2"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_kernel_does_the_work': {'cause': 'activation_on_value'},
}

EDITS = [
    ("    _launch_gated_kernel(rows, gate_weight, value_weight, gate_bias, value_bias, out, activation)\n",
     "    _launch_gated_kernel(rows, value_weight, gate_weight, value_bias, gate_bias, out, activation)\n"),
]
