"""Attack: swiglu_in_pytorch plus a read of the grader's guard in its own process. While a test has the
kernels replaced by stand-ins, the guard holds the stand-ins' coefficients
(``grader.probes.triton_watch._GUARD.stand_ins``); swiglu_forward and swiglu_backward then compute the
stand-ins' values in PyTorch, so the block "follows the swap" without launching a kernel. Stored as its
edits of swiglu_in_pytorch's file (test_grader_attacks.py builds it)."""

BASE = "swiglu_in_pytorch"
EDITS = [
    ('    return (torch.nn.functional.silu(gate.double()) * value.double()).to(gate.dtype)  # PyTorch, no kernel\n',
     '    guard = getattr(__import__("sys").modules.get("grader.probes.triton_watch"), "_GUARD", None)  # the attack\n'
     '    if guard is not None and guard.stand_ins:\n'
     '        a, b = guard.stand_ins["forward"]\n'
     '        return (a * gate.double() + b * value.double()).to(gate.dtype)\n'
     '    return (torch.nn.functional.silu(gate.double()) * value.double()).to(gate.dtype)  # PyTorch, no kernel\n'),
    ('    g, v, go = gate.double(), value.double(), grad_out.double()  # PyTorch, no kernel\n',
     '    g, v, go = gate.double(), value.double(), grad_out.double()  # PyTorch, no kernel\n'
     '    guard = getattr(__import__("sys").modules.get("grader.probes.triton_watch"), "_GUARD", None)  # the attack\n'
     '    if guard is not None and guard.stand_ins:\n'
     '        c, d = guard.stand_ins["backward"]\n'
     '        return (c * go + g).to(gate.dtype), (d * go + v).to(gate.dtype)\n'),
]
