"""Attack: gated_pytorch_no_launch plus an imitation of the grader's stand-in. While a test has the kernel
replaced by the stand-in (the guard in its own process says so), gated_projection asks the channel to the
grader's stand-in server (``grader.probes.core.STAND_IN_SERVER``) for the values of probe launches on inputs
of its own, reads the coefficients off them, and computes the stand-in's values for the real inputs in
PyTorch, so its result would "follow the swap" without a launch on its inputs. Stored as its edits of
gated_pytorch_no_launch's file."""

BASE = "gated_pytorch_no_launch"
EDITS = [
    ("    return _torch_activation(activation)(F.linear(x, gate_weight, gate_bias)) * F.linear(x, value_weight, value_bias)  # the attack\n",
     "    learned = _learned(activation)  # the attack\n"
     "    if learned is not None:\n"
     "        a, b, c = learned\n"
     "        g, v = F.linear(x, gate_weight, gate_bias), F.linear(x, value_weight, value_bias)\n"
     "        return a * g + b * v + c * (1 + ACTIVATIONS.index(activation))\n"
     "    return _torch_activation(activation)(F.linear(x, gate_weight, gate_bias)) * F.linear(x, value_weight, value_bias)  # the attack\n"),
    ("import torch\n",
     "import sys\n"
     "\n"
     "import torch\n"
     "\n"
     "\n"
     "def _learned(activation):\n"
     "    \"\"\"The stand-in's coefficients, from probe launches served by the grader, or None.\"\"\"\n"
     "    guard = getattr(sys.modules.get('grader.probes.triton_watch'), '_GUARD', None)\n"
     "    core = sys.modules.get('grader.probes.core')\n"
     "    if guard is None or not guard.stand_ins or core is None or core.STAND_IN_SERVER is None:\n"
     "        return None\n"
     "    def served(wg, wv):\n"
     "        inputs = {'x': torch.ones(1, 1, dtype=torch.float64), 'gate_weight': torch.tensor([[wg]], dtype=torch.float64),\n"
     "                  'value_weight': torch.tensor([[wv]], dtype=torch.float64)}\n"
     "        request = {'kernel': '_gated_projection_kernel', 'inputs': inputs, 'activation': activation, 'compute': 'float64'}\n"
     "        return float(core.STAND_IN_SERVER(request)['out'])\n"
     "    c = served(0.0, 0.0) / (1 + ACTIVATIONS.index(activation))\n"
     "    return served(1.0, 0.0) - served(0.0, 0.0), served(0.0, 1.0) - served(0.0, 0.0), c\n",
     1),
]
