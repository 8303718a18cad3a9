"""Wrong: swiglu() calls SwiGLUFunction.apply(value, gate), passing the two inputs in the wrong order."""

EDITS = [
    ('    return SwiGLUFunction.apply(gate, value)\n',
     '    return SwiGLUFunction.apply(value, gate)\n'),
]
