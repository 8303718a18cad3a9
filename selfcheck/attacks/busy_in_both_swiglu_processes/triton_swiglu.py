"""Attack on the time budget: the SwiGLU suite runs this file in two processes, the file itself in one and
only its kernels (under the stub's launch code) in the other, and this keeps both busy. In the file's own
process a thread spins from import on, and swiglu_forward and swiglu_backward spin when called; each kernel
body spins too, which is all that runs in the other process. Scores 0 (nothing is computed); what it must not
get is a core and a time budget per process: both processes share the submission's one of each. Stored as its
edits of the exercise's stub (test_grader_attacks.py builds it)."""

BASE = "exercises/triton_swiglu.py"
EDITS = [
    ("import triton.language as tl  # noqa: E402\n",
     "import triton.language as tl  # noqa: E402\nimport threading  # noqa: E402\n\n\n"
     "def _spin():  # the attack: the file's own process stays busy\n    while True:\n        pass\n\n\n"
     "threading.Thread(target=_spin, daemon=True).start()\n"),
    ("    #   5. tl.store it, converted to out_ptr.dtype.element_ty, with the mask.\n    pass",
     "    #   5. tl.store it, converted to out_ptr.dtype.element_ty, with the mask.\n"
     "    while True:  # the attack: the kernels' process spins\n        pass"),
    ("    #   Store both gradients, converted to their pointers' element type, with the mask.\n    pass",
     "    #   Store both gradients, converted to their pointers' element type, with the mask.\n"
     "    while True:  # the attack: the kernels' process spins\n        pass"),
    ('    raise NotImplementedError(f"swiglu_forward: TODO 1 in {HERE} (write _swiglu_forward_kernel, then delete this line)")\n',
     "    _spin()  # the attack: every call into the file's own process spins\n"),
    ('    raise NotImplementedError(f"swiglu_backward: TODO 2 in {HERE} (write _swiglu_backward_kernel, then delete this line)")\n',
     "    _spin()\n"),
]
