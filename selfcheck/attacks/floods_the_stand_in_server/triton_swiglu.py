"""Attack: kernels_compute_nothing, plus a flood of the grader's stand-in server. Once per process, at its
first launch while a test has the kernels replaced by stand-ins, swiglu_forward writes requests for
stand-in values as frames of its own on the child's channel to the grader (held by the stand-in function,
``grader.probes.core.STAND_IN_SERVER``), so that none of the child's own care applies: up to ``VIEWS``,
while the grader serves them, whose gate is a (2, 3) view of one 60 MB storage (``torch.save`` writes the
whole storage, and the grader's log kept each one), then one holding 19,900 references to one 4,096-emoji
string (the text check escaped it once per reference: 11 s of the grader's CPU). Then it launches its
kernel as its control does. Before the bounds on what the grader reads and keeps for a call: the
grader's peak 2.6 GB and 16 s of its CPU, against 0.36 GB and 2 s for the control; after: 0.48 GB and
2 s. Stored as its edits of kernels_compute_nothing's file (test_grader_attacks.py builds it)."""

BASE = "kernels_compute_nothing"
EDITS = [
    ('    (gate_rows, value_rows, out_rows), n_rows, n_cols = _as_rows([gate, value, out])\n',
     '    _flood()  # the attack\n'
     '    (gate_rows, value_rows, out_rows), n_rows, n_cols = _as_rows([gate, value, out])\n'),
    ('import os\n\nimport torch\nfrom torch import nn\n',
     'import io\n'
     'import os\n'
     'import sys\n'
     '\n'
     'import torch\n'
     'from torch import nn\n'
     '\n'
     'VIEWS = 32\n'
     '_FLOODED = []\n'
     '\n'
     '\n'
     'def _frame(request):\n'
     '    buffer = io.BytesIO()\n'
     '    torch.save(request, buffer)\n'
     '    return buffer.getvalue()\n'
     '\n'
     '\n'
     'def _flood():\n'
     '    guard = getattr(sys.modules.get("grader.probes.triton_watch"), "_GUARD", None)\n'
     '    core = sys.modules.get("grader.probes.core")\n'
     '    if _FLOODED or guard is None or not guard.stand_ins or core is None or core.STAND_IN_SERVER is None:\n'
     '        return\n'
     '    _FLOODED.append(True)\n'
     '    cells = [cell.cell_contents for cell in core.STAND_IN_SERVER.__closure__ or ()]\n'
     '    channel = next((c for c in cells if hasattr(c, "write_fd")), None)\n'
     '    if channel is None:\n'
     '        return\n'
     '\n'
     '    def ask(frame):\n'
     '        channel.write(b"Q", frame)\n'
     '        return torch.load(io.BytesIO(channel.read()[1]), weights_only=True)\n'
     '\n'
     '    value = torch.ones(2, 3, dtype=torch.float64)\n'
     '    storage = torch.zeros(60 * 2**20 // 8, dtype=torch.float64)\n'
     '    view = _frame({"kernel": "_swiglu_forward_kernel", "inputs": {"gate": storage[:6].view(2, 3), "value": value}})\n'
     '    del storage\n'
     '    for _ in range(VIEWS):\n'
     '        if "error" in ask(view):\n'
     '            break\n'
     '    ask(_frame({"kernel": "_swiglu_forward_kernel", "inputs": {"gate": value, "value": value},\n'
     '                "note": ["\\U0001F600" * 4096] * 19_900}))\n'),
]
