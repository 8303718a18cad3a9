"""Wrong: SwiGLUFunction.backward unpacks ctx.saved_tensors as (value, gate), the reverse of what forward saved."""

EXPECT_FAILURES = {
    'test_autograd_gradients[float32]': {'cause': 'saved tensors unpacked swapped'},
    'test_autograd_sum_backward': {'cause': 'saved tensors unpacked swapped'},
    'test_gradcheck_float64': {'waits_on': 'test_autograd_gradients[float32]'},
}

EDITS = [
    ("        gate, value = ctx.saved_tensors", "        value, gate = ctx.saved_tensors"),
]
