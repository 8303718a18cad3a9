"""Wrong: the forward kernel stores one column to the left (cols - 1), so the first store of out lands before it."""

EXPECT_FAILURES = {
    'test_memory_stays_in_bounds[forward]': {'waits_on': 'test_forward_float32'},
    'test_forward_float32[2d]': {'cause': 'OutOfBoundsAccess in swiglu_forward', 'says': 'an offset below 0'},
}

EDITS = [
    ("    tl.store(out_ptr + row * out_row_stride + cols, out.to(out_ptr.dtype.element_ty), mask=in_row)",
     "    tl.store(out_ptr + row * out_row_stride + cols - 1, out.to(out_ptr.dtype.element_ty), mask=in_row)"),
]
