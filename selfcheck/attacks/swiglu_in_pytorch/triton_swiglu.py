"""Not an attack: the control for the fused SwiGLU attacks. The exercise's stub with swiglu_forward and
swiglu_backward computing in PyTorch (no kernel launched; the kernels stay the stub's) and TODO 3-7 right.
The attacks are this file plus one trick each, and must score no more than it does. Stored as its edits
of the stub (test_grader_attacks.py builds it)."""

BASE = "exercises/triton_swiglu.py"
EDITS = [
    ('    # Delete the next line once _swiglu_forward_kernel is written.\n    raise NotImplementedError(f"swiglu_forward: TODO 1 in {HERE} (write _swiglu_forward_kernel, then delete this line)")\n',
     '    return (torch.nn.functional.silu(gate.double()) * value.double()).to(gate.dtype)  # PyTorch, no kernel\n'),
    ('    # Delete the next line once _swiglu_backward_kernel is written.\n    raise NotImplementedError(f"swiglu_backward: TODO 2 in {HERE} (write _swiglu_backward_kernel, then delete this line)")\n',
     '    g, v, go = gate.double(), value.double(), grad_out.double()  # PyTorch, no kernel\n    sig = torch.sigmoid(g)\n    return (go * v * sig * (1 + g * (1 - sig))).to(gate.dtype), (go * g * sig).to(gate.dtype)\n'),
    ('        # TODO 3: keep what the backward needs (ctx.save_for_backward), return swiglu_forward(gate, value).\n        raise NotImplementedError(f"SwiGLUFunction.forward: TODO 3 in {HERE}")\n',
     '        ctx.save_for_backward(gate, value)\n        return swiglu_forward(gate, value)\n'),
    ('        # TODO 4: get the saved tensors back (ctx.saved_tensors) and return (grad_gate, grad_value)\n        # from swiglu_backward: one gradient per input of forward, in the same order.\n        raise NotImplementedError(f"SwiGLUFunction.backward: TODO 4 in {HERE}")\n',
     '        gate, value = ctx.saved_tensors\n        return swiglu_backward(grad_out, gate, value)\n'),
    ('    # TODO 5: apply SwiGLUFunction (an autograd.Function is called through its .apply).\n    raise NotImplementedError(f"swiglu: TODO 5 in {HERE} (the autograd tests need TODO 3-4 too: SwiGLUFunction)")\n',
     '    return SwiGLUFunction.apply(gate, value)\n'),
    ('        # TODO 6: create self.Wv, self.Wg and self.Wo (nn.Linear, with bias) and a dropout module.\n        raise NotImplementedError(f"FusedSwiGLU.__init__: TODO 6 in {HERE}")\n',
     '        self.Wv = nn.Linear(hidden_dim, intermediate_dim)\n        self.Wg = nn.Linear(hidden_dim, intermediate_dim)\n        self.Wo = nn.Linear(intermediate_dim, hidden_dim)\n        self.dropout = nn.Dropout(dropout)\n'),
    ('        # TODO 7: return dropout(Wo(swiglu(Wg(x), Wv(x)))).\n        raise NotImplementedError(f"FusedSwiGLU.forward: TODO 7 in {HERE}")\n',
     '        return self.dropout(self.Wo(swiglu(self.Wg(x), self.Wv(x))))\n'),
]
