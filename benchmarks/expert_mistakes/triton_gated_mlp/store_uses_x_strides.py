"""Wrong: the output tile is stored with x's strides (stride_xm, stride_xk) instead of out's."""

EDITS = [
    ('    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on, out.to(out_ptr.dtype.element_ty),\n',
     '    tl.store(out_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xk, out.to(out_ptr.dtype.element_ty),\n'),
]
