"""Wrong: the gate's bias is added after the activation, act(x Wg^T) + bg, instead of inside it."""

POLICY_TODOS = "1"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': 'gate_bias_after_activation'},
    'test_forward_float32[gelu]': {'cause': 'gate_bias_after_activation'},
}

EDITS = [
    ("        gate += tl.load(gate_bias_ptr + cols, mask=cols < N, other=0.0).to(COMPUTE_DTYPE)[None, :]\n", ""),
    ("    out = _activation(gate, ACTIVATION) * value\n",
     "    out = _activation(gate, ACTIVATION) * value\n"
     "    if HAS_BIAS:\n"
     "        out = (_activation(gate, ACTIVATION)\n"
     "               + tl.load(gate_bias_ptr + cols, mask=cols < N, other=0.0).to(COMPUTE_DTYPE)[None, :]) * value\n"),
]
