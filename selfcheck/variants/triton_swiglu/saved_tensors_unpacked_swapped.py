"""Wrong: SwiGLUFunction.backward unpacks ctx.saved_tensors as (value, gate), the reverse of what forward saved."""

EXPECT_FAILURES = {
    "test_autograd_gradients[float32]": "unpack ctx.saved_tensors in the order forward saved them",
    "test_autograd_sum_backward": "swiglu_backward got gate and value swapped",
    "test_gradcheck_float64": "counts once test_autograd_gradients[float32] passes",
}

EDITS = [
    ("        gate, value = ctx.saved_tensors", "        value, gate = ctx.saved_tensors"),
]
