"""Attack: the PyTorch-only SwiGLU of swiglu_in_pytorch, plus the grader's launch watch patched in its own
process to report that the exercise's kernels ran and wrote every result. Stored as its edits of that file
(test_grader_attacks.py builds it)."""

BASE = "swiglu_in_pytorch"
EDITS = [
    ("import triton  # noqa: E402\n",
     'import triton  # noqa: E402\nimport sys  # noqa: E402\n\n# The attack: every launch watch of the grader\'s probes in this process says the exercise\'s kernels ran\n# and wrote every tensor handed back.\n_probes = next(m for name, m in sys.modules.items() if name.endswith("probes") and hasattr(m, "TritonWatch"))\n_probes.TritonWatch.ours = lambda self: ["_swiglu_forward_kernel", "_swiglu_backward_kernel"]\n_probes.TritonWatch.wrote = lambda self, t: True\n_probes.TritonWatch.foreign = lambda self: []\n'),
]
