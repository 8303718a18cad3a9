"""Wrong: swiglu returns swiglu_forward(gate, value) itself, so autograd never reaches SwiGLUFunction (TODO 5)."""

# Written before grading: the kernels, the launch code and the block are right; the output of swiglu has no
# grad_fn, so nothing reaches the backward kernel through it. That is TODO 5's property alone: the autograd
# tests (gradients in float32 and bfloat16, out.sum()'s backward, gradcheck) fail, 6 points, one cause; the
# block's tests run with swiglu replaced by the grader's and keep theirs.
EXPERT_VERDICT = "Loses the autograd tests only, about 6 of 117 (111 kept), told once: swiglu bypasses SwiGLUFunction."

EXPECT_FAILURES = {
    'test_autograd_gradients[float32]': {'cause': 'swiglu bypasses SwiGLUFunction', 'says': 'SwiGLUFunction.apply'},
    'test_autograd_gradients[bfloat16]': {'cause': 'swiglu bypasses SwiGLUFunction'},
    'test_autograd_sum_backward': {'cause': 'swiglu bypasses SwiGLUFunction'},
    'test_gradcheck_float64': {'waits_on': 'test_autograd_gradients[float32]'},
}

EDITS = [
    ("    return SwiGLUFunction.apply(gate, value)\n", "    return swiglu_forward(gate, value)\n"),
]
