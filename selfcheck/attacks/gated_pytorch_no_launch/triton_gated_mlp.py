"""Attack: gated_kernel_computes_nothing, whose gated_projection returns what PyTorch computes and
launches nothing. Stored as its edits of the control's file."""

BASE = "gated_kernel_computes_nothing"
EDITS = [
    ("    rows = x.reshape(-1, x.shape[-1])  # a view where it can be one; its strides go to the kernel as they are\n",
     "    return _torch_activation(activation)(F.linear(x, gate_weight, gate_bias)) * F.linear(x, value_weight, value_bias)  # the attack\n"
     "    rows = x.reshape(-1, x.shape[-1])  # a view where it can be one; its strides go to the kernel as they are\n"),
]
