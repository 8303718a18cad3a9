"""Wrong: in SwiGLUFunction.backward I called swiglu_backward(gate, value, grad_out), putting grad_out last instead of first."""

EDITS = [
    ('        return swiglu_backward(grad_out, gate, value)\n',
     '        return swiglu_backward(gate, value, grad_out)\n'),
]
