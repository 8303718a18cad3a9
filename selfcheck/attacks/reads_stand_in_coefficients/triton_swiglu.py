"""Attack: swiglu_in_pytorch plus an imitation of the grader's stand-ins. While a test has the kernels
replaced by stand-ins (the guard in its own process says so), swiglu_forward and swiglu_backward ask the
channel to the grader's stand-in server (``grader.probes.core.STAND_IN_SERVER``) for the values of a probe
launch on inputs of their own (gate = 1, value = 0, ...), read the coefficients off them, and compute the
stand-ins' values for the real inputs in PyTorch, so the block would "follow the swap" without launching a
kernel on its inputs. Stored as its edits of swiglu_in_pytorch's file (test_grader_attacks.py builds it)."""

BASE = "swiglu_in_pytorch"
EDITS = [
    ('    return (torch.nn.functional.silu(gate.double()) * value.double()).to(gate.dtype)  # PyTorch, no kernel\n',
     '    coefficients = _learned("_swiglu_forward_kernel")  # the attack\n'
     '    if coefficients is not None:\n'
     '        a, b = coefficients\n'
     '        return (a * gate.double() + b * value.double()).to(gate.dtype)\n'
     '    return (torch.nn.functional.silu(gate.double()) * value.double()).to(gate.dtype)  # PyTorch, no kernel\n'),
    ('    g, v, go = gate.double(), value.double(), grad_out.double()  # PyTorch, no kernel\n',
     '    g, v, go = gate.double(), value.double(), grad_out.double()  # PyTorch, no kernel\n'
     '    coefficients = _learned("_swiglu_backward_kernel")  # the attack\n'
     '    if coefficients is not None:\n'
     '        c, d = coefficients\n'
     '        return (c * go + g).to(gate.dtype), (d * go + v).to(gate.dtype)\n'),
    ('import torch\n',
     'import sys\n'
     '\n'
     'import torch\n'
     '\n'
     '\n'
     'def _learned(kernel):\n'
     '    """The stand-in\'s coefficients, from one probe launch served by the grader, or None."""\n'
     '    guard = getattr(sys.modules.get("grader.probes.triton_watch"), "_GUARD", None)\n'
     '    core = sys.modules.get("grader.probes.core")\n'
     '    if guard is None or not guard.stand_ins or core is None or core.STAND_IN_SERVER is None:\n'
     '        return None\n'
     '    one, zero = torch.ones(1, 1, dtype=torch.float64), torch.zeros(1, 1, dtype=torch.float64)\n'
     '    if kernel == "_swiglu_forward_kernel":\n'
     '        a = core.STAND_IN_SERVER({"kernel": kernel, "inputs": {"gate": one, "value": zero}})["out"]\n'
     '        b = core.STAND_IN_SERVER({"kernel": kernel, "inputs": {"gate": zero, "value": one}})["out"]\n'
     '        return float(a), float(b)\n'
     '    served = core.STAND_IN_SERVER({"kernel": kernel, "inputs": {"grad_out": one, "gate": zero, "value": zero}})\n'
     '    return float(served["grad_gate"]), float(served["grad_value"])\n',
     1),
]
