"""Wrong: the forward kernel takes one more parameter, n_rows, than the stub gives (its own launch passes it)."""

# Launched by the student's own code the kernel works; the kernel tests launch it with the stub's
# launch code, which cannot, so they fail in one line that names the parameters expected.
EXPECT_FAILURES = {
    'test_forward_float32[1d]': {'cause': 'KernelSourceError in _swiglu_forward_kernel', 'says': 'keep the signature the stub gives (TODO 1)'},
    'test_memory_stays_in_bounds[forward]': {'waits_on': 'test_forward_float32'},
    'test_kernels_launched[forward-contiguous]': {'cause': 'KernelSourceError in _swiglu_forward_kernel', 'says': 'takes (gate_ptr, value_ptr, out_ptr, gate_row_stride, value_row_stride, out_row_stride, n_rows, n_cols'},
}

EDITS = [
    ("    out_row_stride,  # same for out\n"
     "    n_cols,  # elements per row\n",
     "    out_row_stride,  # same for out\n"
     "    n_rows,  # rows (unused)\n"
     "    n_cols,  # elements per row\n"),
    ("        n_cols,\n"
     "        COMPUTE_DTYPE=_compute_dtype(gate.dtype), BLOCK_SIZE=block_size, num_warps=num_warps,\n"
     "    )\n"
     "    return out\n",
     "        n_rows, n_cols,\n"
     "        COMPUTE_DTYPE=_compute_dtype(gate.dtype), BLOCK_SIZE=block_size, num_warps=num_warps,\n"
     "    )\n"
     "    return out\n"),
]
