"""Wrong: in SwiGLUFunction.forward I passed a list to ctx.save_for_backward([gate, value]) instead of the tensors themselves."""

EDITS = [
    ('        ctx.save_for_backward(gate, value)\n',
     '        ctx.save_for_backward([gate, value])\n'),
]
