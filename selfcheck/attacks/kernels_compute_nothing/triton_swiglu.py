"""Not an attack: the control for kernel_default_runs_code. Kernels that compute nothing (each reads its
program id), launched by swiglu_forward and swiglu_backward as the stub does; TODO 3-7 are right. Stored as
its edits of swiglu_in_pytorch's file (test_grader_attacks.py builds it)."""

BASE = "swiglu_in_pytorch"
EDITS = [
    ('    #   5. tl.store it, converted to out_ptr.dtype.element_ty, with the mask.\n    pass',
     '    #   5. tl.store it, converted to out_ptr.dtype.element_ty, with the mask.\n    pid = tl.program_id(0)'),
    ("    #   Store both gradients, converted to their pointers' element type, with the mask.\n    pass",
     "    #   Store both gradients, converted to their pointers' element type, with the mask.\n    pid = tl.program_id(0)"),
    ('    return (torch.nn.functional.silu(gate.double()) * value.double()).to(gate.dtype)  # PyTorch, no kernel\n',
     '    out = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)\n    if gate.numel() == 0:\n        return out\n'),
    ('    g, v, go = gate.double(), value.double(), grad_out.double()  # PyTorch, no kernel\n    sig = torch.sigmoid(g)\n    return (go * v * sig * (1 + g * (1 - sig))).to(gate.dtype), (go * g * sig).to(gate.dtype)\n',
     '    grad_gate = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)\n    grad_value = torch.empty(gate.shape, dtype=gate.dtype, device=gate.device)\n    if gate.numel() == 0:\n        return grad_gate, grad_value\n'),
]
