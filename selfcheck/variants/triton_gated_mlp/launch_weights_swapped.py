"""Wrong: a right kernel, launched with the value's weight and bias where the gate's go (TODO 2): the kernel tests, which launch it with the grader's code, all pass."""

EXPECT_FAILURES = {
    "test_kernel_does_the_work": "the activation is on the value",
}

EDITS = [
    ("            rows, gate_weight, value_weight,\n",
     "            rows, value_weight, gate_weight,\n"),
    ("            gate_bias.contiguous() if has_bias else gate_weight, value_bias.contiguous() if has_bias else value_weight,\n",
     "            value_bias.contiguous() if has_bias else value_weight, gate_bias.contiguous() if has_bias else gate_weight,\n"),
    ("            gate_weight.stride(0), gate_weight.stride(1),\n            value_weight.stride(0), value_weight.stride(1),\n",
     "            value_weight.stride(0), value_weight.stride(1),\n            gate_weight.stride(0), gate_weight.stride(1),\n"),
]
