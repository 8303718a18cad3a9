"""Wrong: the launch code flattens every tensor with .reshape, which keeps the strides of a strided or broadcast view."""

# A launch-code mistake: the kernels are right (the kernel tests pass), the functions hand them views
# whose elements are not consecutive.
EXPECT_FAILURES = {
    'test_kernels_launched[forward-strided]': {'cause': 'launch', 'says': 'strided view'},
    'test_kernels_launched[backward-strided]': {'cause': 'launch', 'says': 'strided view'},
    'test_autograd_sum_backward': {'cause': 'OutOfBoundsAccess in swiglu (backward pass)', 'says': 'strides (0, 0)'},
}

EDITS = [
    ("    if all(t.is_contiguous() for t in tensors) and numel < 2**31:\n"
     "        return [t.view(1, numel) for t in tensors], 1, numel\n",
     "    if numel < 2**31:  # one row of every element; .reshape makes a view whenever it can\n"
     "        return [t.reshape(1, numel) for t in tensors], 1, numel\n"),
]
