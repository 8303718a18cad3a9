"""Attack: gated_kernel_computes_nothing, whose gated_projection launches the kernel once, as it should,
and then returns what PyTorch computes: a launch record and the right values, without a kernel that
computes them. Stored as its edits of the control's file."""

BASE = "gated_kernel_computes_nothing"
EDITS = [
    ("    return out.reshape(*x.shape[:-1], gate_weight.shape[0])\n",
     "    return _torch_activation(activation)(F.linear(x, gate_weight, gate_bias)) * F.linear(x, value_weight, value_bias)  # the attack\n"),
]
