"""Attack: gated_pytorch_no_launch plus a read of the grader's guard in its own process: while a test has
the kernel replaced by the stand-in, the guard holds its coefficients, and gated_projection computes the
stand-in's values in PyTorch, so its result "follows the swap" without a launch. Stored as its edits of
gated_pytorch_no_launch's file."""

BASE = "gated_pytorch_no_launch"
EDITS = [
    ("    return _torch_activation(activation)(F.linear(x, gate_weight, gate_bias)) * F.linear(x, value_weight, value_bias)  # the attack\n",
     "    guard = getattr(__import__('sys').modules.get('grader.probes.triton_watch'), '_GUARD', None)  # the attack\n"
     "    if guard is not None and guard.stand_ins:\n"
     "        a, b, c = guard.stand_ins['gated']\n"
     "        g, v = F.linear(x, gate_weight, gate_bias), F.linear(x, value_weight, value_bias)\n"
     "        return a * g + b * v + c * (1 + ACTIVATIONS.index(activation))\n"
     "    return _torch_activation(activation)(F.linear(x, gate_weight, gate_bias)) * F.linear(x, value_weight, value_bias)  # the attack\n"),
]
