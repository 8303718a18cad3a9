"""Wrong: the output tile is stored through x's strides (stride_xm, stride_xk, copied from the load) instead of out's."""

# x's row stride is K (45) where out's is N (29): the last rows land past out's end, so the tests that judge bounds
# fail on a store out of bounds, told as what it is; the others see each row shifted, the rest never written.
EXPECT_FAILURES = {
    'test_forward_float32[silu]': {'cause': "out stored with x's strides", 'says': 'stores out of bounds'},
    'test_forward_float32[gelu]': {'cause': "out stored with x's strides"},
    'test_forward_float32[gelu_tanh]': {'cause': "out stored with x's strides"},
    'test_forward_float32[relu]': {'cause': "out stored with x's strides"},
    'test_forward_float32[sigmoid]': {'cause': "out stored with x's strides"},
    'test_forward_float64': {'cause': "out stored with x's strides"},
    'test_forward_16bit[bfloat16]': {'cause': "out stored with x's strides"},
    'test_forward_16bit[float16]': {'cause': "out stored with x's strides"},
    'test_forward_noncontiguous_x[transposed]': {'cause': "out stored with x's strides"},
    'test_forward_noncontiguous_x[strided]': {'cause': "out stored with x's strides"},
    'test_memory_stays_in_bounds': {'cause': "out stored with x's strides", 'says': 'stride_om and stride_on'},
}

EDITS = [
    ('    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, out.to(out_ptr.dtype.element_ty),\n',
     '    tl.store(out_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xk, out.to(out_ptr.dtype.element_ty),\n'),
]
