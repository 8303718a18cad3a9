"""Wrong: the backward kernel addresses grad_out with gate's row stride, which a broadcast row breaks."""

EXPECT_FAILURES = {
    'test_backward_noncontiguous[grad_out_broadcast_row]': {'cause': 'OutOfBoundsAccess in swiglu_backward', 'says': 'address grad_out with its own stride'},
    'test_backward_noncontiguous[chunk]': {'cause': 'OutOfBoundsAccess in swiglu_backward', 'says': "past the end of grad_out_ptr's tensor"},
}

EDITS = [
    ('grad_out = tl.load(grad_out_ptr + row * grad_out_row_stride + cols, mask=in_row)',
     'grad_out = tl.load(grad_out_ptr + row * gate_row_stride + cols, mask=in_row)'),
]
