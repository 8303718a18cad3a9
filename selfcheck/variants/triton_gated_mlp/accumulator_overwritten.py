"""Wrong: each K step's tl.dot overwrites the sums (gate = tl.dot(x, wg)) instead of adding to them: only the last step counts."""
EXPERT_VERDICT = ("Wrong in every dtype and activation (TODO 1): the output is the epilogue of the last K step's"
                  " products alone. The layouts, the bias flag, the launch, the combined weight and the block are"
                  " right, and judged against the kernel's own output they keep their points. An expert takes the"
                  " kernel's value tests (5 x 2 + 2 + 2 x 1 = 14 of 38), told once as the overwrite.")

# Graded by the suites; the expert's verdict above was written before. One cause in every dtype and activation.
EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': 'accumulator_overwritten', 'says': 'overwrites both sums'},
    'test_forward_float32[relu]': {'cause': 'accumulator_overwritten'},
    'test_forward_float64': {'cause': 'accumulator_overwritten'},
    'test_forward_16bit[bfloat16]': {'cause': 'accumulator_overwritten'},
}

EDITS = [
    ('        gate = tl.dot(x, wg, gate, input_precision="ieee")\n        value = tl.dot(x, wv, value, input_precision="ieee")\n',
     '        gate = tl.dot(x, wg, input_precision="ieee")\n        value = tl.dot(x, wv, input_precision="ieee")\n'),
]
