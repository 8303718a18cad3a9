"""Attack: kernels_compute_nothing plus a module-level statement right above the first kernel, and a
line separator (U+2028) in a comment above it. Python's tokenizer keeps U+2028 inside the comment's
line; str.splitlines() ends a line there. A kernels-only file built by line numbers from splitlines()
would copy the statement, which replaces Triton's interpreter with PyTorch, so every launch of any
kernel 'computes' SwiGLU; each kernel ends with a spare statement, so that a copy one line off still parses.
Stored as its edits of kernels_compute_nothing's file."""

BASE = "kernels_compute_nothing"
EDITS = [
    ("    pid = tl.program_id(0)", "    pid = tl.program_id(0)\n    pid = tl.program_id(0)", 2),
    ("@triton.jit\ndef _swiglu_forward_kernel(",
     "# a comment that holds a line separator: \u2028 (the attack)\n"
     'exec("import torch, triton.runtime.interpreter as I\\ndef run(self, *args, grid, warmup, **kw):\\n    a = dict(zip(self.arg_names, args), **kw)\\n    g, v = a[\'gate_ptr\'].double(), a[\'value_ptr\'].double()\\n    s = torch.sigmoid(g)\\n    if \'out_ptr\' in a:\\n        a[\'out_ptr\'].copy_(g * s * v)\\n    else:\\n        go = a[\'grad_out_ptr\'].double()\\n        a[\'grad_gate_ptr\'].copy_(go * v * s * (1 + g * (1 - s)))\\n        a[\'grad_value_ptr\'].copy_(go * g * s)\\nI.InterpretedFunction.run = run\\n")' "\n"
     "@triton.jit\ndef _swiglu_forward_kernel("),
]
