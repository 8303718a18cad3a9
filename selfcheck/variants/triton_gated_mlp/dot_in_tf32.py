"""Wrong: tl.dot without input_precision="ieee", so float32 tiles are multiplied in TF32, as on a GPU."""

POLICY_TODOS = "1"  # a row of the policy table in docs/grading.md (selfcheck/panels.py)

EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': 'tf32', 'says': 'tl.dot multiplied the float32 tiles in TF32'},
    'test_forward_float32[gelu]': {'cause': 'tf32'},
}

EDITS = [
    ("        gate = tl.dot(x, wg, gate, input_precision=\"ieee\")\n        value = tl.dot(x, wv, value, input_precision=\"ieee\")\n",
     "        gate = tl.dot(x, wg, gate)\n        value = tl.dot(x, wv, value)\n"),
]
